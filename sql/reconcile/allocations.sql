-- in: sacct_rows   params: none
-- out: temp table allocations: one row per scheduler allocation (alloc_id numbers them).
--      Steps (.batch, .extern, .0) repeat their job's AllocTRES, so GPU-hours are counted on
--      the allocation line only; a job exported with steps but no allocation line gets one
--      built from its steps (longest elapsed, most GPUs), flagged from_steps.
CREATE OR REPLACE TEMP TABLE allocations AS
WITH own AS (
    SELECT cluster, job_id, job_id_raw, array_job_id, het_job_id, name, account, partition,
           state, state_text, cancelled_by, exit_status, exit_signal, elapsed_seconds,
           submit_time, start_time, end_time, gpus, gpu_type, source_path, source_line,
           false AS from_steps
    FROM sacct_rows
    WHERE step IS NULL
), orphan_steps AS (
    SELECT cluster, job_id,
           any_value(job_id_raw) AS job_id_raw,
           any_value(array_job_id) AS array_job_id,
           any_value(het_job_id) AS het_job_id,
           arg_max(name, elapsed_seconds) AS name,
           any_value(account) AS account,
           any_value(partition) AS partition,
           arg_max(state, elapsed_seconds) AS state,
           arg_max(state_text, elapsed_seconds) AS state_text,
           any_value(cancelled_by) AS cancelled_by,
           arg_max(exit_status, elapsed_seconds) AS exit_status,
           arg_max(exit_signal, elapsed_seconds) AS exit_signal,
           max(elapsed_seconds) AS elapsed_seconds,
           min(submit_time) AS submit_time,
           min(start_time) AS start_time,
           max(end_time) AS end_time,
           max(gpus) AS gpus,
           any_value(gpu_type) AS gpu_type,
           min(source_path) AS source_path,
           min(source_line) AS source_line,
           true AS from_steps
    FROM sacct_rows s
    WHERE step IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM sacct_rows a
                      WHERE a.step IS NULL AND a.cluster = s.cluster AND a.job_id = s.job_id)
    GROUP BY cluster, job_id
)
SELECT row_number() OVER (ORDER BY cluster, job_id, submit_time) AS alloc_id, *,
       gpus * elapsed_seconds AS allocated_gpu_seconds
FROM (SELECT * FROM own UNION ALL SELECT * FROM orphan_steps);
