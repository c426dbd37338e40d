-- in: job_accounting   params: none
-- out: state, exit_code, diagnosed_cause, jobs, allocated / lost / recovery / unverified
--      GPU-seconds, pending_cancelled (jobs cancelled before they started), example job ids:
--      the week's failed, cancelled, preempted, requeued ... allocations.
SELECT state,
       CASE WHEN exit_status IS NULL THEN NULL
            ELSE concat(exit_status, ':', coalesce(exit_signal, 0)) END AS exit_code,
       diagnosed_cause,
       count(*) AS jobs,
       sum(allocated_gpu_seconds) AS allocated,
       sum(lost_gpu_seconds) AS lost,
       sum(recovery_gpu_seconds) AS recovery,
       sum(unverified_gpu_seconds) AS unverified,
       count(*) FILTER (WHERE start_time IS NULL) AS pending_cancelled,
       list(job_id ORDER BY allocated_gpu_seconds DESC, job_id)[1:5] AS example_jobs
FROM job_accounting
WHERE in_week AND state NOT IN ('COMPLETED', 'RUNNING', 'PENDING')
GROUP BY ALL
ORDER BY allocated DESC, jobs DESC, state;
