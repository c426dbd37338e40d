-- in: job_accounting   params: $path (a file to write)
-- out: (writes the JSON array of the week's jobs to $path, contract keys first). DuckDB
--      streams it to the file, so a million-line export never becomes one in-memory value or
--      Python objects; the command copies the file into its JSON output. GPU-hours rounded to
--      6 places for display; the totals are exact sums of the integer GPU-seconds. Times are
--      ISO-8601 UTC; app_* are the application's own clock, kept beside the scheduler's.
COPY (
    SELECT job_id,
           state,
           gpus,
           round(allocated_gpu_seconds / 3600, 6) AS allocated_gpu_hours,
           round(useful_gpu_seconds / 3600, 6) AS useful_gpu_hours,
           round(recovery_gpu_seconds / 3600, 6) AS recovery_gpu_hours,
           round(lost_gpu_seconds / 3600, 6) AS lost_gpu_hours,
           round(unverified_gpu_seconds / 3600, 6) AS unverified_gpu_hours,
           job_id_raw,
           cluster,
           name,
           account,
           partition,
           state_text,
           CASE WHEN exit_status IS NOT NULL
                THEN concat(exit_status, ':', coalesce(exit_signal, 0)) END AS exit_code,
           elapsed_seconds,
           strftime(make_timestamp(epoch_us(submit_time)), '%Y-%m-%dT%H:%M:%SZ') AS submit_time,
           strftime(make_timestamp(epoch_us(start_time)), '%Y-%m-%dT%H:%M:%SZ') AS start_time,
           strftime(make_timestamp(epoch_us(end_time)), '%Y-%m-%dT%H:%M:%SZ') AS end_time,
           work_class,
           experiment_id,
           result_valid,
           diagnosed_cause,
           recovery_caused_by,
           CASE WHEN app_start IS NOT NULL
                THEN strftime(make_timestamp(app_start * 1000000), '%Y-%m-%dT%H:%M:%SZ')
           END AS app_start_time,
           CASE WHEN app_end IS NOT NULL
                THEN strftime(make_timestamp(app_end * 1000000), '%Y-%m-%dT%H:%M:%SZ')
           END AS app_end_time,
           app_elapsed_seconds,
           flags,
           from_steps
    FROM job_accounting
    WHERE in_week
    ORDER BY alloc_id  -- report order: see allocations.sql
) TO $path (FORMAT json, ARRAY true);
