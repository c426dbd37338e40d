-- in: job_accounting, closed_accounting (migration 021), closed_use   params: none
-- out: temp view job_accounting_all: job_accounting's rows and those of the closed tracked
--      jobs the review did not read (reconcile/closed_jobs.py; alloc_id minus their closed_id,
--      in_week false, to date whole), with job_accounting's columns: what the campaign-to-date
--      queries read. Without closed rows in use it is job_accounting.
CREATE OR REPLACE TEMP VIEW job_accounting_all AS
SELECT * FROM job_accounting
UNION ALL BY NAME
SELECT -closed_id AS alloc_id,
       * EXCLUDE (closed_id, t0, chain, chain_pos, walk_high_water, tracked_json, computed_at)
FROM closed_accounting
WHERE closed_id <= (SELECT upto FROM closed_use);
