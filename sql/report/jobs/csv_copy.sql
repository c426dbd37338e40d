-- in: the jobs JSON array at $json (reconcile/summarize/jobs_copy writes it), not the ledger
-- params: $json (read), $csv (written)
-- out: (writes every job of the week to $csv, one row each, with a header). DuckDB streams
--      the array into the file, so a million jobs never become Python objects. The
--      *_gpu_hours are read as the DECIMAL(38, 12) the export wrote, so the CSV keeps them
--      exact; flags are joined with spaces.
COPY (
    SELECT job_id, state, work_class, experiment_id, gpus, elapsed_seconds,
           allocated_gpu_hours, useful_gpu_hours, recovery_gpu_hours, lost_gpu_hours,
           unverified_gpu_hours,
           allocated_gpu_seconds, useful_gpu_seconds, recovery_gpu_seconds, lost_gpu_seconds,
           unverified_gpu_seconds, billing, allocated_billing_hours, gpu_util_pct,
           gpu_mem_used_gib,
           cluster, name, account, partition, exit_code, submit_time, start_time, end_time,
           diagnosed_cause, recovery_caused_by, array_to_string(flags, ' ') AS flags
    FROM read_json($json, format = 'array', columns = {
        'job_id': 'VARCHAR', 'state': 'VARCHAR', 'work_class': 'VARCHAR',
        'experiment_id': 'VARCHAR', 'gpus': 'BIGINT', 'elapsed_seconds': 'BIGINT',
        'allocated_gpu_hours': 'DECIMAL(38, 12)', 'useful_gpu_hours': 'DECIMAL(38, 12)',
        'recovery_gpu_hours': 'DECIMAL(38, 12)', 'lost_gpu_hours': 'DECIMAL(38, 12)',
        'unverified_gpu_hours': 'DECIMAL(38, 12)',
        'allocated_gpu_seconds': 'HUGEINT', 'useful_gpu_seconds': 'HUGEINT',
        'recovery_gpu_seconds': 'HUGEINT', 'lost_gpu_seconds': 'HUGEINT',
        'unverified_gpu_seconds': 'HUGEINT',
        'billing': 'BIGINT', 'allocated_billing_hours': 'DECIMAL(38, 12)',
        'gpu_util_pct': 'DECIMAL(18, 6)', 'gpu_mem_used_gib': 'DECIMAL(18, 6)',
        'cluster': 'VARCHAR', 'name': 'VARCHAR', 'account': 'VARCHAR', 'partition': 'VARCHAR',
        'exit_code': 'VARCHAR', 'submit_time': 'VARCHAR', 'start_time': 'VARCHAR',
        'end_time': 'VARCHAR', 'diagnosed_cause': 'VARCHAR', 'recovery_caused_by': 'VARCHAR',
        'flags': 'VARCHAR[]'
    })
) TO $csv (FORMAT csv, HEADER true);
