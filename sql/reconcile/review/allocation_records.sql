-- in: review_records, job_lines   params: none
-- out: temp table allocation_records: one row per scheduler allocation, not yet numbered
--      (allocations.sql numbers them). Steps (.batch, .extern, .0) repeat their job's
--      AllocTRES, so GPU-hours are counted on the allocation line only; a job exported with
--      steps but no allocation line gets one built from its steps (longest elapsed, most
--      GPUs), flagged from_steps. Every step aggregate breaks ties by landing and line, so the
--      result never depends on scan order.
CREATE OR REPLACE TEMP TABLE allocation_records AS
WITH own AS (
    SELECT cluster, job_id, job_id_raw, array_job_id, het_job_id, name, account, partition,
           state, state_text, cancelled_by, exit_status, exit_signal, elapsed_seconds,
           submit_time, start_time, end_time, gpus, gpu_type, source_path, source_line,
           false AS from_steps, time_flags
    FROM review_records
    WHERE step IS NULL
), orphan_keys AS (
    -- Jobs that have only step lines (a grouping is cheaper than an anti-join over steps).
    SELECT cluster, job_id FROM job_lines WHERE steps_only
), orphan_steps AS (
    SELECT cluster, job_id,
           arg_min(job_id_raw, (source_id, source_line)) AS job_id_raw,
           arg_min(array_job_id, (source_id, source_line)) AS array_job_id,
           arg_min(het_job_id, (source_id, source_line)) AS het_job_id,
           arg_max(name, (elapsed_seconds, source_id, source_line)) AS name,
           arg_min(account, (source_id, source_line)) AS account,
           arg_min(partition, (source_id, source_line)) AS partition,
           arg_max(state, (elapsed_seconds, source_id, source_line)) AS state,
           arg_max(state_text, (elapsed_seconds, source_id, source_line)) AS state_text,
           arg_min(cancelled_by, (source_id, source_line)) AS cancelled_by,
           arg_max(exit_status, (elapsed_seconds, source_id, source_line)) AS exit_status,
           arg_max(exit_signal, (elapsed_seconds, source_id, source_line)) AS exit_signal,
           max(elapsed_seconds) AS elapsed_seconds,
           min(submit_time) AS submit_time,
           min(start_time) AS start_time,
           max(end_time) AS end_time,
           max(gpus) AS gpus,
           arg_min(gpu_type, (source_id, source_line)) AS gpu_type,
           min(source_path) AS source_path,
           min(source_line) AS source_line,
           true AS from_steps,
           nullif(list_distinct(flatten(list(coalesce(time_flags, [])))), []) AS time_flags
    FROM review_records
    JOIN orphan_keys USING (cluster, job_id)
    GROUP BY cluster, job_id
)
SELECT * FROM own UNION ALL SELECT * FROM orphan_steps;
