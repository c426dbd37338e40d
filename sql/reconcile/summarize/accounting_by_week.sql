-- in: job_accounting (reconcile/relations.py)   params: none
-- out: week (ISO, of each allocation's start or submit), allocated/useful/recovery/lost/
--      unverified GPU-hours, one row per week in order (Review.accounting_by_week)
SELECT strftime(coalesce(start_time, submit_time), '%G-W%V') AS week,
       sum(gpus * elapsed_seconds) / 3600.0 AS allocated_gpu_hours,
       sum(useful_gpu_seconds) / 3600.0 AS useful_gpu_hours,
       sum(recovery_gpu_seconds) / 3600.0 AS recovery_gpu_hours,
       sum(lost_gpu_seconds) / 3600.0 AS lost_gpu_hours,
       sum(unverified_gpu_seconds) / 3600.0 AS unverified_gpu_hours
FROM job_accounting
GROUP BY ALL
ORDER BY week;
