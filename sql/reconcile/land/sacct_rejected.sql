-- in: sacct_parsed (view)   params: $scan (false when every line the view reads has landed)
-- out: temp table sacct_rejected(lineno, problem): the lines that did not land and why.
--      DuckDB evaluates only the columns `problem` depends on; with $scan false the filter is
--      folded away and nothing is read.
CREATE OR REPLACE TEMP TABLE sacct_rejected AS
SELECT lineno, problem
FROM sacct_parsed
WHERE $scan AND problem IS NOT NULL;
