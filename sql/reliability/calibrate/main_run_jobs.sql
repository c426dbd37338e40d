-- in: job_accounting_all (reconcile/relations.py)   params: none
-- out: the main run's allocations to the reviewed week's end (main-class jobs and the
--      retry-class jobs of an experiment with a main-class job, as goodput_by_week.sql):
--      alloc_id, cluster, gpus, state, diagnosed_cause, seconds at risk, GPU-seconds, and
--      restart_s for a job resumed from a step with recovery (its restart: job_splits'
--      restart_s, migration 020, carried by job_accounting and the closed jobs' rows; NULL
--      otherwise). Ordered as alloc_id numbers the jobs read (allocations.sql).
SELECT alloc_id, cluster, gpus, state, diagnosed_cause,
       to_date_allocated_gpu_seconds // greatest(gpus, 1) AS seconds_at_risk,
       to_date_allocated_gpu_seconds AS gpu_seconds,
       CASE WHEN resumed_from_step > 0 AND job_recovery_seconds > 0 THEN restart_s END
           AS restart_s
FROM job_accounting_all
WHERE to_date AND start_time IS NOT NULL
  AND (work_class = 'main'
       OR (work_class = 'retry' AND experiment_id IN (
           SELECT experiment_id FROM job_accounting_all
           WHERE work_class = 'main' AND experiment_id IS NOT NULL)))
ORDER BY start_time, cluster, job_id, submit_time;
