-- in: sacct_lines, the variable sacct_split   params: none
-- out: how many data lines were read (after the header, if any)
SELECT count(*)
FROM sacct_lines
WHERE lineno >= getvariable('sacct_split').first_data_line;
