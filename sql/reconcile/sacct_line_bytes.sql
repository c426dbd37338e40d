-- in: sacct_lines   params: none
-- out: the bytes the numbered lines account for: every kept line and its newline, plus one
--      byte for each blank line (the gaps in the numbering); equals the file's size when
--      read_csv gave exactly one row per line
SELECT coalesce(sum(strlen(line) + 1), 0) + coalesce(max(lineno), 0) - count(*)
FROM sacct_lines;
