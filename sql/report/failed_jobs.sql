-- in: job_accounting (temp table left by reconcile.review.review)   params: $week_start, $week_end
-- out: one row per tracked allocation that started in [week_start, week_end) and did not
--      complete: its diagnosis, useful GPU-hours, and how many retry jobs its experiment has had
SELECT j.job_id, j.state, j.experiment_id, j.work_class, j.diagnosed_cause, j.cause_addressed,
       j.useful_gpu_seconds / 3600.0 AS useful_gpu_hours,
       (SELECT count(*) FROM job_accounting r
        WHERE r.experiment_id = j.experiment_id AND r.work_class = 'retry') AS retries_used
FROM job_accounting j
WHERE j.state NOT IN ('COMPLETED', 'RUNNING', 'PENDING')
  AND j.experiment_id IS NOT NULL
  AND j.start_time >= $week_start AND j.start_time < $week_end
ORDER BY j.start_time, j.job_id;
