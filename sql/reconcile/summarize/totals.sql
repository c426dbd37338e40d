-- in: job_accounting   params: none
-- out: one row: jobs, the five GPU-second sums of the week's allocations, how many lines
--      sacct printed for them (steps included) and what summing every line would give.
SELECT count(*) AS jobs,
       coalesce(sum(allocated_gpu_seconds), 0) AS allocated,
       coalesce(sum(useful_gpu_seconds), 0) AS useful,
       coalesce(sum(recovery_gpu_seconds), 0) AS recovery,
       coalesce(sum(lost_gpu_seconds), 0) AS lost,
       coalesce(sum(unverified_gpu_seconds), 0) AS unverified,
       count(*) FILTER (WHERE from_steps) AS built_from_steps,
       count(*) FILTER (WHERE work_class = 'untracked') AS untracked_jobs,
       coalesce(sum(allocated_gpu_seconds) FILTER (WHERE work_class = 'untracked'), 0)
           AS untracked_gpu_seconds,
       count(*) FILTER (WHERE list_contains(flags, 'clock-disagreement')) AS clock_flagged
FROM job_accounting
WHERE in_week;
