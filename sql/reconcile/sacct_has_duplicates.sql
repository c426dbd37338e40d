-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: one row if two lines of this landing share (cluster, job id, step, submit time)
SELECT 1
FROM sacct_rows
WHERE source_id = $source_id
GROUP BY cluster, job_id, step, submit_time
HAVING count(*) > 1
LIMIT 1;
