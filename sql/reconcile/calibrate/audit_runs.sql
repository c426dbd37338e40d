-- in: run_estimates (migration 002), job_accounting_all   params: none
-- out: one row per run id that has an estimate and jobs: the newest estimate beside what the
--      run's jobs (registry experiment_id = run id, or a job id = run id) actually used.
--      (GPU-seconds up to the week's end: job_accounting_all's to_date_* parts)
--      runtime = useful wall seconds of its training jobs; retries = training jobs that ran − 1.
WITH est AS (
    SELECT *
    FROM run_estimates
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY estimated_at DESC, estimate_id DESC) = 1
), jobs AS (
    SELECT coalesce(experiment_id, job_id) AS run_id, *
    FROM job_accounting_all
    WHERE to_date
      AND coalesce(experiment_id, job_id) IN (SELECT run_id FROM est)
), actual AS (
    SELECT run_id,
           -- The first start's, ties broken by cluster and job id (live and closed rows
           -- come from two branches of job_accounting_all, in no fixed order).
           first(cluster ORDER BY start_time, cluster, job_id)
               FILTER (WHERE start_time IS NOT NULL) AS cluster,
           first(work_class ORDER BY start_time, cluster, job_id)
               FILTER (WHERE work_class <> 'evaluation' AND start_time IS NOT NULL) AS work_class,
           sum(to_date_useful_gpu_seconds // greatest(gpus, 1))
               FILTER (WHERE work_class <> 'evaluation') AS useful_wall_seconds,
           sum(to_date_allocated_gpu_seconds) FILTER (WHERE work_class <> 'evaluation') AS training_gpu_seconds,
           sum(to_date_recovery_gpu_seconds + to_date_lost_gpu_seconds) AS overhead_gpu_seconds,
           sum(to_date_allocated_gpu_seconds) FILTER (WHERE work_class = 'evaluation') AS evaluation_gpu_seconds,
           count(*) FILTER (WHERE work_class <> 'evaluation' AND elapsed_seconds > 0)
               AS training_jobs,
           bool_or(state = 'COMPLETED' AND to_date_useful_gpu_seconds > 0 AND work_class <> 'evaluation')
               AS completed
    FROM jobs
    GROUP BY run_id
)
SELECT e.run_id, a.cluster, coalesce(a.work_class, 'unknown') AS work_class, e.mfu,
       e.wall_seconds AS estimated_wall_seconds, e.gpu_hours AS estimated_gpu_hours,
       a.useful_wall_seconds, a.training_gpu_seconds, a.overhead_gpu_seconds,
       coalesce(a.evaluation_gpu_seconds, 0) AS evaluation_gpu_seconds,
       greatest(a.training_jobs - 1, 0) AS retries, a.completed,
       a.useful_wall_seconds / nullif(e.wall_seconds, 0) AS runtime_ratio,
       a.training_gpu_seconds / 3600.0 / nullif(e.gpu_hours, 0) AS gpu_hours_ratio
FROM est e JOIN actual a USING (run_id)
ORDER BY e.run_id;
