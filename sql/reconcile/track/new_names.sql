-- in: registry, progress_events, run_estimates, tracked_names (migration 019),
--     tracked_new_sources (new_sources.sql)   params: none
-- out: temp table tracked_new_names(job_id): the names (job ids as the registry, the progress
--      events and the estimates' run ids give them) no review has matched against sacct_rows
--      yet: those of the registry and progress files landed since (not the whole campaign's
--      events again) and of every estimate (a handful), less the names matched before.
CREATE OR REPLACE TEMP TABLE tracked_new_names AS
SELECT job_id FROM registry
WHERE job_id IS NOT NULL AND source_id IN (SELECT source_id FROM tracked_new_sources)
UNION SELECT job_id FROM progress_events
WHERE job_id IS NOT NULL AND source_id IN (SELECT source_id FROM tracked_new_sources)
UNION SELECT run_id FROM run_estimates WHERE run_id IS NOT NULL
EXCEPT SELECT job_id FROM tracked_names;
