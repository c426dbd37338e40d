-- in: job_accounting, job_billing, job_gpu_usage   params: none
-- out: temp view jobs_export: the week's jobs as every --jobs format and the inline array
--      print them, contract keys first, and alloc_id last (the report order: allocations.sql;
--      the copies sort by it and leave it out). The integer *_gpu_seconds are the exact
--      figures (they sum to the totals' *_gpu_seconds exactly); *_gpu_hours are derived from
--      them as DECIMAL(38, 12), rounded half up at the 12th decimal (21 GPU-seconds =
--      0.005833333333 h; 3.6 ns of one GPU), never as doubles: whole hours s // 3600 plus the
--      rest's 12 places from (s % 3600) in BIGINT, which needs no HUGEINT (the seconds are
--      never negative: JOB_ACCOUNTING_RULES; 0.7 CPU-s less for 2M values than
--      (s::HUGEINT * 2e12 + 3600) // 7200, the same text). Times are ISO-8601 UTC;
--      app_* are the application's own clock, kept beside the scheduler's. `billing` is
--      the AllocTRES billing=N (NULL without one) and allocated_billing_hours N × the
--      seconds in the week (reconcile/billing/job_billing.sql), exact as the GPU-hours.
--      gpu_util_pct and gpu_mem_used_gib are what the job's GPUs did, per GPU (NULL when
--      nothing says: reconcile/usage/job_gpu_usage.sql), DECIMAL(18, 6).
CREATE OR REPLACE TEMP VIEW jobs_export AS
SELECT job_id,
       state,
       gpus,
       (allocated_gpu_seconds // 3600)::DECIMAL(38, 12)
           + (((allocated_gpu_seconds % 3600) * 2000000000000 + 3600) // 7200)::DECIMAL(18, 0)
             * 0.000000000001::DECIMAL(12, 12) AS allocated_gpu_hours,
       (useful_gpu_seconds // 3600)::DECIMAL(38, 12)
           + (((useful_gpu_seconds % 3600) * 2000000000000 + 3600) // 7200)::DECIMAL(18, 0)
             * 0.000000000001::DECIMAL(12, 12) AS useful_gpu_hours,
       (recovery_gpu_seconds // 3600)::DECIMAL(38, 12)
           + (((recovery_gpu_seconds % 3600) * 2000000000000 + 3600) // 7200)::DECIMAL(18, 0)
             * 0.000000000001::DECIMAL(12, 12) AS recovery_gpu_hours,
       (lost_gpu_seconds // 3600)::DECIMAL(38, 12)
           + (((lost_gpu_seconds % 3600) * 2000000000000 + 3600) // 7200)::DECIMAL(18, 0)
             * 0.000000000001::DECIMAL(12, 12) AS lost_gpu_hours,
       (unverified_gpu_seconds // 3600)::DECIMAL(38, 12)
           + (((unverified_gpu_seconds % 3600) * 2000000000000 + 3600) // 7200)::DECIMAL(18, 0)
             * 0.000000000001::DECIMAL(12, 12) AS unverified_gpu_hours,
       allocated_gpu_seconds,
       useful_gpu_seconds,
       recovery_gpu_seconds,
       lost_gpu_seconds,
       unverified_gpu_seconds,
       billing,
       (allocated_billing_seconds // 3600)::DECIMAL(38, 12)
           + (((allocated_billing_seconds % 3600) * 2000000000000 + 3600) // 7200)::DECIMAL(18, 0)
             * 0.000000000001::DECIMAL(12, 12) AS allocated_billing_hours,
       allocated_billing_seconds,
       gpu_util_pct,
       gpu_mem_used_gib,
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
       from_steps,
       alloc_id
FROM job_accounting
LEFT JOIN (SELECT alloc_id, billing, allocated_billing_seconds FROM job_billing) USING (alloc_id)
LEFT JOIN (SELECT alloc_id, gpu_util_pct, gpu_mem_used_gib FROM job_gpu_usage) USING (alloc_id)
WHERE in_week;
