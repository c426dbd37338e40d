-- in: sources, run_estimates, closed_seen (migration 021)   params: none
-- out: temp table closed_new(source_id, estimate_id, kind): the landings the closed rows do
--      not reflect yet: landed sacct, registry and progress files (a rejected file is not
--      recorded: landed again under its id, its rows are new then) and estimates.
CREATE OR REPLACE TEMP TABLE closed_new AS
SELECT source_id, NULL::BIGINT AS estimate_id, kind
FROM sources
WHERE kind IN ('sacct', 'registry', 'progress') AND status = 'landed'
  AND source_id NOT IN (SELECT source_id FROM closed_seen WHERE source_id IS NOT NULL)
UNION ALL
SELECT NULL, estimate_id, 'estimate'
FROM run_estimates
WHERE estimate_id NOT IN (SELECT estimate_id FROM closed_seen WHERE estimate_id IS NOT NULL);
