-- in: sacct_rejected   params: none
-- out: lineno, problem of the first line (file order) that did not parse, if any
SELECT lineno, problem
FROM sacct_rejected
ORDER BY lineno
LIMIT 1;
