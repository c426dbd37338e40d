-- in: sacct_rows, sacct_parsed   out: (removes landed rows that this landing replaces: same
--     cluster, job id, step and submit time; the newer record of a job wins, so an overlapping
--     or repeated export never counts a job twice)
DELETE FROM sacct_rows AS r
USING sacct_parsed AS p
WHERE p.problem IS NULL
  AND r.cluster = p.cluster AND r.job_id = p.job_id
  AND r.step IS NOT DISTINCT FROM p.step
  AND r.submit_time IS NOT DISTINCT FROM p.submit_time;
