-- in: job_accounting   params: $limit
-- out: the week's largest allocations with their split, for the human-readable table.
SELECT job_id, state, work_class, gpus, elapsed_seconds,
       allocated_gpu_seconds AS allocated, useful_gpu_seconds AS useful,
       recovery_gpu_seconds AS recovery, lost_gpu_seconds AS lost,
       unverified_gpu_seconds AS unverified, flags
FROM job_accounting
WHERE in_week
ORDER BY allocated_gpu_seconds DESC, job_id
LIMIT $limit;
