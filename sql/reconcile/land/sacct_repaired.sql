-- in: params $linenos, $lines, $parts (parallel lists: the repaired over-long lines)
-- out: temp table sacct_repaired(lineno, line, parts), added to the stage beside good lines
CREATE OR REPLACE TEMP TABLE sacct_repaired AS
SELECT CAST(unnest($linenos) AS BIGINT) AS lineno,
       CAST(unnest($lines) AS VARCHAR) AS line,
       CAST(unnest($parts) AS VARCHAR[]) AS parts;
