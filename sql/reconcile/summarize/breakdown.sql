-- in: job_accounting   params: none
-- out: dimension (state / account / work_class), value, jobs and the five GPU-second sums of
--      the week's allocations, one grouping set per dimension.
SELECT CASE WHEN GROUPING(state) = 0 THEN 'state'
            WHEN GROUPING(account) = 0 THEN 'account' ELSE 'work_class' END AS dimension,
       coalesce(state, account, work_class, '(none)') AS value,
       count(*) AS jobs,
       sum(allocated_gpu_seconds) AS allocated,
       sum(useful_gpu_seconds) AS useful,
       sum(recovery_gpu_seconds) AS recovery,
       sum(lost_gpu_seconds) AS lost,
       sum(unverified_gpu_seconds) AS unverified
FROM job_accounting
WHERE in_week
GROUP BY GROUPING SETS ((state), (account), (work_class))
ORDER BY dimension, allocated DESC, value;
