-- in: registry, progress_events, run_estimates, tracked_names (migration 019)   params: none
-- out: temp table tracked_new_names(job_id): the names (job ids as the registry, the progress
--      events and the estimates' run ids give them) no review has matched against sacct_rows yet.
CREATE OR REPLACE TEMP TABLE tracked_new_names AS
SELECT job_id FROM registry WHERE job_id IS NOT NULL
UNION SELECT job_id FROM progress_events WHERE job_id IS NOT NULL
UNION SELECT run_id FROM run_estimates WHERE run_id IS NOT NULL
EXCEPT SELECT job_id FROM tracked_names;
