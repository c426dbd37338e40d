-- in: sacct_lines, the variable sacct_split (sacct_split_params.sql)   params: none
-- out: temp table sacct_strings(tres, state_raw, exitcode, odd_lineno, odd_line): one scan
--      that finds both
--      - each DISTINCT combination of the AllocTRES, State and ExitCode strings (hundreds,
--        not a million), which sacct_lookup parses once and the sacct_parsed view joins back;
--      - the lines whose field count is not the header's (free text holding the delimiter,
--        or a damaged line), with their text: Python repairs or quarantines these few.
--      On every other line odd_lineno and odd_line are NULL, so they add no distinct rows.
CREATE OR REPLACE TEMP TABLE sacct_strings AS
SELECT DISTINCT
       coalesce(parts[getvariable('sacct_split').i_gputres], '') AS tres,
       coalesce(parts[getvariable('sacct_split').i_state], '') AS state_raw,
       coalesce(parts[getvariable('sacct_split').i_exitcode], '') AS exitcode,
       CASE WHEN len(parts) <> getvariable('sacct_split').field_count THEN lineno END
           AS odd_lineno,
       CASE WHEN len(parts) <> getvariable('sacct_split').field_count THEN line END AS odd_line
FROM (SELECT lineno, line, string_split(line, getvariable('sacct_split').delim) AS parts
      FROM sacct_lines
      WHERE lineno >= getvariable('sacct_split').first_data_line);
