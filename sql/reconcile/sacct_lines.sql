-- in: one sacct text file   params: $path, $nul (a delimiter that never occurs: one column)
-- out: temp table sacct_lines(lineno, line): every non-blank line with its 1-based number.
--      read_csv streams the file in parallel; ROW_NUMBER() OVER () keeps the file's order (a
--      blank line is a NULL row, so numbering stays exact). Python checks that the rows
--      account for every byte of the file (sacct_line_bytes) and falls back to
--      sacct_lines_text when they do not.
CREATE OR REPLACE TEMP TABLE sacct_lines AS
SELECT lineno, line
FROM (
    SELECT row_number() OVER () AS lineno, line
    FROM read_csv($path, columns = {'line': 'VARCHAR'}, delim = $nul, header = false,
                  auto_detect = false, quote = '', escape = '', strict_mode = false)
)
WHERE line IS NOT NULL AND line <> '';
