-- in: the jobs CSV at $csv (report/jobs/csv_copy writes it), not the ledger
-- params: $csv, $limit
-- out: the $limit jobs with the most allocated GPU-hours (ties by job id), every accounting
--      column, for the report's table; the hours exact (DECIMAL(38, 12)); one top-N scan.
SELECT job_id, state, work_class, experiment_id, gpus::BIGINT AS gpus,
       elapsed_seconds::BIGINT AS elapsed_seconds,
       allocated_gpu_hours::DECIMAL(38, 12) AS allocated_gpu_hours,
       useful_gpu_hours::DECIMAL(38, 12) AS useful_gpu_hours,
       recovery_gpu_hours::DECIMAL(38, 12) AS recovery_gpu_hours,
       lost_gpu_hours::DECIMAL(38, 12) AS lost_gpu_hours,
       unverified_gpu_hours::DECIMAL(38, 12) AS unverified_gpu_hours,
       gpu_util_pct::DECIMAL(18, 6) AS gpu_util_pct,
       coalesce(flags, '') AS flags
FROM read_csv($csv, header = true, all_varchar = true)
ORDER BY allocated_gpu_seconds::HUGEINT DESC, job_id
LIMIT $limit;
