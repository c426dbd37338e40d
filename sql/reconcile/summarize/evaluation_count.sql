-- in: job_accounting_all   params: none
-- out: jobs and allocated GPU-seconds of evaluation-class work, this week and to date.
SELECT count(*) FILTER (WHERE in_week) AS week_jobs,
       coalesce(sum(allocated_gpu_seconds) FILTER (WHERE in_week), 0) AS week_gpu_seconds,
       count(*) FILTER (WHERE to_date) AS to_date_jobs,
       coalesce(sum(to_date_allocated_gpu_seconds) FILTER (WHERE to_date), 0) AS to_date_gpu_seconds,
       count(*) FILTER (WHERE to_date AND state = 'COMPLETED') AS to_date_completed
FROM job_accounting_all
WHERE work_class = 'evaluation';
