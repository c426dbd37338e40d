-- in: sacct_parsed   params: $source_id (the rest of the provenance is in sources; the view
--     sacct_records joins it back)   out: (the good rows into sacct_rows) and the count inserted
INSERT INTO sacct_rows
SELECT cluster, job_id, step, job_id_raw, name, account, partition, state, state_text,
       exit_status, exit_signal, elapsed_seconds, elapsed_text, submit_time, start_time,
       end_time, gpus, gpu_type, alloc_mem_bytes, alloc_cpus, nnodes, alloc_tres, req_tres,
       $source_id, lineno, time_flags,
       -- run_end_time (migration 018). An Elapsed past the timestamp range gives NULL, not an
       -- error: the rule check after this insert quarantines that line (ElapsedRaw ≤ 366 days).
       TRY(coalesce(start_time, submit_time) + to_seconds(elapsed_seconds))
FROM sacct_parsed
WHERE problem IS NULL;
