-- in: the jobs JSON array at $json (reconcile/summarize/jobs_copy writes it), not the ledger
-- params: $json (read), $parquet (written)
-- out: (writes every job of the week to $parquet, one row each, every key of the array as a
--      column in its order; what `reconcile --jobs F.parquet` writes). The *_gpu_hours are read
--      as the DECIMAL(38, 12) the export wrote and stored as Parquet decimals, so they stay
--      exact; flags stay a list. One row back: the number of jobs written.
COPY (
    SELECT *
    FROM read_json($json, format = 'array', columns = {
        'job_id': 'VARCHAR', 'state': 'VARCHAR', 'gpus': 'INTEGER',
        'allocated_gpu_hours': 'DECIMAL(38, 12)', 'useful_gpu_hours': 'DECIMAL(38, 12)',
        'recovery_gpu_hours': 'DECIMAL(38, 12)', 'lost_gpu_hours': 'DECIMAL(38, 12)',
        'unverified_gpu_hours': 'DECIMAL(38, 12)',
        'allocated_gpu_seconds': 'BIGINT', 'useful_gpu_seconds': 'BIGINT',
        'recovery_gpu_seconds': 'BIGINT', 'lost_gpu_seconds': 'BIGINT',
        'unverified_gpu_seconds': 'BIGINT',
        'billing': 'BIGINT', 'allocated_billing_hours': 'DECIMAL(38, 12)',
        'allocated_billing_seconds': 'BIGINT',
        'gpu_util_pct': 'DECIMAL(18, 6)', 'gpu_mem_used_gib': 'DECIMAL(18, 6)',
        'job_id_raw': 'VARCHAR', 'cluster': 'VARCHAR', 'name': 'VARCHAR', 'account': 'VARCHAR',
        'partition': 'VARCHAR', 'state_text': 'VARCHAR', 'exit_code': 'VARCHAR',
        'elapsed_seconds': 'BIGINT', 'submit_time': 'VARCHAR', 'start_time': 'VARCHAR',
        'end_time': 'VARCHAR', 'work_class': 'VARCHAR', 'experiment_id': 'VARCHAR',
        'result_valid': 'BOOLEAN', 'diagnosed_cause': 'VARCHAR',
        'recovery_caused_by': 'VARCHAR', 'app_start_time': 'VARCHAR',
        'app_end_time': 'VARCHAR', 'app_elapsed_seconds': 'BIGINT', 'flags': 'VARCHAR[]',
        'from_steps': 'BOOLEAN'
    })
) TO $parquet (FORMAT parquet);
