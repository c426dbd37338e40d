-- in: sacct_lines   params: $first_data_line, $field_count, $delim
-- out: lineno, line of data lines whose field count is not the header's (free text holding
--      the delimiter, or a damaged line); Python repairs or quarantines these few.
SELECT lineno, line
FROM sacct_lines
WHERE lineno >= $first_data_line
  AND (length(line) - length(replace(line, $delim, ''))) <> ($field_count - 1) * length($delim)
ORDER BY lineno;
