-- in: sacct_parsed   params: the provenance $source_id, $source_path, $source_sha256,
--     $landed_at   out: (the good rows into sacct_rows) and the count inserted
INSERT INTO sacct_rows
SELECT cluster, job_id, step, job_id_raw, array_job_id, array_task, het_job_id, het_offset,
       name, account, partition, state, state_text, cancelled_by, exit_status, exit_signal,
       elapsed_seconds, elapsed_text, submit_time, start_time, end_time, gpus, gpu_type,
       alloc_mem_bytes, alloc_cpus, nnodes, alloc_tres, req_tres,
       $source_id, $source_path, lineno, $source_sha256, $landed_at
FROM sacct_parsed
WHERE problem IS NULL;
