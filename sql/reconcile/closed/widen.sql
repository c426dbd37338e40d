-- in: closed_accounting   params: $t0 (epoch seconds)
-- out: one row: the earliest start of the closed jobs (cluster, job id) that have an
--      allocation starting at or after $t0 (NULL: none). closed_jobs.py forgets from there, so
--      a job is kept or forgotten whole, and what is kept is a prefix of every chain.
SELECT min(t0) FROM closed_accounting
WHERE (cluster, job_id) IN (SELECT (cluster, job_id) FROM closed_accounting WHERE t0 >= $t0);
