-- in: params $linenos (the data lines whose field count is not the header's)
-- out: temp table sacct_odd_lines(lineno): lines the sacct_parsed view must not split itself
--      (Python rejoined them into sacct_repaired, or quarantined them)
CREATE OR REPLACE TEMP TABLE sacct_odd_lines AS
SELECT unnest(CAST($linenos AS BIGINT[])) AS lineno;
