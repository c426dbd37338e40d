-- in: sacct_parsed   params: none
-- out: one row if two good lines share (cluster, job id, step, submit time)
SELECT 1
FROM sacct_parsed
WHERE problem IS NULL
GROUP BY cluster, job_id, step, submit_time
HAVING count(*) > 1
LIMIT 1;
