-- in: job_accounting   params: none
-- out: one row: jobs, the five GPU-second sums of the week's allocations (their parts inside
--      the week), how many were built from steps, untracked, clock-flagged, had an ambiguous
--      or non-existent local time, or ran past a week bound (and their GPU-seconds outside).
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
       count(*) FILTER (WHERE list_contains(flags, 'clock-disagreement')) AS clock_flagged,
       -- time_flags is NULL on almost every row: test that first, the text only where set.
       count(*) FILTER (WHERE time_flags IS NOT NULL
                        AND contains(array_to_string(time_flags, ' '), '-ambiguous'))
           AS time_ambiguous,
       count(*) FILTER (WHERE time_flags IS NOT NULL
                        AND contains(array_to_string(time_flags, ' '), '-nonexistent'))
           AS time_nonexistent,
       count(*) FILTER (WHERE list_contains(flags, 'split-across-weeks')) AS split_across_weeks,
       coalesce(sum(job_allocated_gpu_seconds - allocated_gpu_seconds)
                FILTER (WHERE list_contains(flags, 'split-across-weeks')), 0)
           AS outside_week_gpu_seconds
FROM job_accounting
WHERE in_week;
