-- in: sacct_strings   params: none
-- out: lineno, line of the data lines whose field count is not the header's, in file order
SELECT odd_lineno, odd_line
FROM sacct_strings
WHERE odd_lineno IS NOT NULL
ORDER BY odd_lineno;
