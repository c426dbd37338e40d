-- in: job_lines, job_accounting   params: none
-- out: lines, gpu_seconds: every sacct line (steps too) of the week's jobs and the GPU-seconds
--      a sum over lines would claim; shows what counting once per allocation avoids.
SELECT coalesce(sum(l.lines), 0) AS lines, coalesce(sum(l.line_gpu_seconds), 0) AS gpu_seconds
FROM job_lines l
JOIN (SELECT DISTINCT cluster, job_id FROM job_accounting WHERE in_week) j
  ON l.cluster = j.cluster AND l.job_id = j.job_id;
