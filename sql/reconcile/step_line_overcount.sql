-- in: sacct_rows, job_accounting   params: none
-- out: lines, gpu_seconds: every sacct line (steps too) of the week's jobs and the GPU-seconds
--      a sum over lines would claim; shows what counting once per allocation avoids.
SELECT count(*) AS lines, coalesce(sum(r.gpus * r.elapsed_seconds), 0) AS gpu_seconds
FROM sacct_rows r
JOIN (SELECT DISTINCT cluster, job_id FROM job_accounting WHERE in_week) j
  ON r.cluster = j.cluster AND r.job_id = j.job_id;
