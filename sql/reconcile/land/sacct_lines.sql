-- in: sacct_raw (sacct_read_csv, sacct_read_text or sacct_read_json), the variable
--     sacct_first_rowid (sacct_first_rowid.sql)   params: none
-- out: temp view sacct_lines(lineno, line): every non-blank line with its 1-based number,
--      its own lineno when the reader gave one, else counted from its rowid
CREATE OR REPLACE TEMP VIEW sacct_lines AS
SELECT coalesce(lineno, rowid - getvariable('sacct_first_rowid') + 1) AS lineno, line
FROM sacct_raw
WHERE line <> '';
