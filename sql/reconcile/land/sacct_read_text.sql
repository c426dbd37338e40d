-- in: one sacct text file   params: $path   (the fallback for files with \r line ends)
-- out: temp table sacct_raw(lineno, line): every line with its 1-based number. read_text +
--      string_split keeps line numbers exact whatever the line ends, and lets a line have
--      any number of fields.
CREATE OR REPLACE TEMP TABLE sacct_raw AS
SELECT lineno, rtrim(line, chr(13)) AS line
FROM (
    SELECT unnest(lines) AS line, generate_subscripts(lines, 1) AS lineno
    FROM (SELECT string_split(content, chr(10)) AS lines FROM read_text($path))
);
