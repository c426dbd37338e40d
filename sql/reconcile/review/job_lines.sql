-- in: review_rows   params: none
-- out: temp table job_lines(cluster, job_id, steps_only, lines, line_gpu_seconds): per job id,
--      whether it has only step lines (no allocation line: allocations.sql builds one from
--      its steps), and how many lines it has with the GPU-seconds a sum over those lines would
--      claim (step_line_overcount.sql). One pass over sacct_rows serves both.
CREATE OR REPLACE TEMP TABLE job_lines AS
SELECT cluster, job_id,
       bool_and(step IS NOT NULL) AS steps_only,
       count(*) AS lines,
       sum(gpus * elapsed_seconds) AS line_gpu_seconds
FROM review_rows
GROUP BY cluster, job_id;
