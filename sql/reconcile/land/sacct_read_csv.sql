-- in: one sacct text file   params: $path, $nul (a delimiter that never occurs: one column)
-- out: temp table sacct_raw(lineno, line): one row per line of the file, in the file's order
--      (a blank line is a NULL row), lineno left NULL: read_csv streams the file in parallel
--      and CREATE TABLE AS keeps the file's order, so the rowid numbers the lines (DuckDB,
--      "Order Preservation": on a materialised table rowid serves as ROW_NUMBER() OVER (),
--      which would run on one thread). Python checks the numbering (sacct_raw_check) and
--      falls back to sacct_read_text when it is not provably exact.
CREATE OR REPLACE TEMP TABLE sacct_raw AS
SELECT CAST(NULL AS BIGINT) AS lineno, line
FROM read_csv($path, columns = {'line': 'VARCHAR'}, delim = $nul, header = false,
              auto_detect = false, quote = '', escape = '', strict_mode = false);
