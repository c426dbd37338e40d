-- in: job_accounting, job_accounting_all (the retries; reconcile/relations.py)
-- params: $week_start, $week_end
-- out: one row per tracked allocation that started in [week_start, week_end) and did not
--      complete: its diagnosis, useful GPU-seconds, and how many retry jobs its experiment
--      has had (read by review.py into Review.failed_jobs, for the retry gate)
SELECT j.job_id, j.state, j.experiment_id, j.work_class, j.diagnosed_cause, j.cause_addressed,
       j.to_date_useful_gpu_seconds AS useful_gpu_seconds,
       (SELECT count(*) FROM job_accounting_all r
        WHERE r.experiment_id = j.experiment_id AND r.work_class = 'retry') AS retries_used
FROM job_accounting j
WHERE j.state NOT IN ('COMPLETED', 'RUNNING', 'PENDING')
  AND j.experiment_id IS NOT NULL
  AND j.start_time >= $week_start AND j.start_time < $week_end
ORDER BY j.start_time, j.job_id;
