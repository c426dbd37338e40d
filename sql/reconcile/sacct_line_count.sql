-- in: sacct_lines   params: none   out: the highest line number read (0 for an empty file)
SELECT coalesce(max(lineno), 0) FROM sacct_lines;
