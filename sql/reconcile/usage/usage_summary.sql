-- in: job_gpu_usage, job_accounting (the GPU and evaluation jobs: job_gpu_usage holds only
--     the allocations with usage lines)   params: none
-- out: one row: the week's GPU jobs, how many have a utilisation figure, the idle ones (under
--      the red line) and their GPU-seconds, the evaluation jobs, how many say how many GPUs
--      they used, the oversized ones with their unused GPU-seconds and the most GPUs any of
--      them used, and the jobs whose usage fields did not all read (flagged)
WITH jobs AS (
    SELECT count(*) FILTER (WHERE gpus > 0) AS gpu_jobs,
           count(*) FILTER (WHERE work_class = 'evaluation' AND gpus > 0) AS evaluation_jobs
    FROM job_accounting
    WHERE in_week
), used AS (
    SELECT count(*) FILTER (WHERE gpus > 0 AND gpu_util_pct IS NOT NULL) AS measured_jobs,
           count(*) FILTER (WHERE idle_gpu_seconds > 0) AS idle_jobs,
           coalesce(sum(idle_gpu_seconds), 0) AS idle_gpu_seconds,
           count(*) FILTER (WHERE work_class = 'evaluation' AND gpus > 0 AND gpus_used IS NOT NULL)
               AS evaluation_measured,
           count(*) FILTER (WHERE work_class = 'evaluation' AND unused_gpu_seconds > 0)
               AS oversized_jobs,
           coalesce(sum(unused_gpu_seconds) FILTER (WHERE work_class = 'evaluation'), 0)
               AS unused_gpu_seconds,
           coalesce(sum(allocated_gpu_seconds)
                        FILTER (WHERE work_class = 'evaluation' AND unused_gpu_seconds > 0), 0)
               AS oversized_allocated_gpu_seconds,
           max(gpus_used) FILTER (WHERE work_class = 'evaluation' AND unused_gpu_seconds > 0)
               AS most_gpus_used,
           count(*) FILTER (WHERE list_has_any(usage_flags,
                                               ['tres-usage-unreadable', 'jobstats-unreadable']))
               AS flagged_jobs,
           count(*) FILTER (WHERE list_contains(usage_flags, 'gpu-util-over-100'))
               AS over_100_jobs
    FROM job_gpu_usage
    WHERE in_week
)
SELECT jobs.gpu_jobs, used.measured_jobs, used.idle_jobs, used.idle_gpu_seconds,
       jobs.evaluation_jobs, used.evaluation_measured, used.oversized_jobs,
       used.unused_gpu_seconds, used.oversized_allocated_gpu_seconds, used.most_gpus_used,
       used.flagged_jobs, used.over_100_jobs
FROM jobs, used;
