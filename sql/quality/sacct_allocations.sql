-- in: sacct_rows   params: none   out: the allocation lines (steps excluded) checked for quality
SELECT cluster, job_id, state, gpus, elapsed_seconds, submit_time, start_time
FROM sacct_rows
WHERE step IS NULL;
