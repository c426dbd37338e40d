-- in: review_rows, sources   params: none
-- out: temp view review_records: sacct_records (migration 012) over review_rows, the lines
--      of the jobs the review reads, with what follows from them.
CREATE OR REPLACE TEMP VIEW review_records AS
SELECT r.cluster, r.job_id, r.step, r.job_id_raw,
       CASE WHEN contains(r.job_id, '_') THEN split_part(r.job_id, '_', 1) END AS array_job_id,
       CASE WHEN contains(r.job_id, '_') THEN split_part(r.job_id, '_', 2) END AS array_task,
       CASE WHEN contains(r.job_id, '+') THEN split_part(r.job_id, '+', 1) END AS het_job_id,
       CASE WHEN contains(r.job_id, '+')
            THEN TRY_CAST(split_part(r.job_id, '+', 2) AS INTEGER) END AS het_offset,
       r.name, r.account, r.partition, r.state, r.state_text,
       CASE WHEN contains(r.state_text, ' by ') THEN split_part(r.state_text, ' by ', 2) END
           AS cancelled_by,
       r.exit_status, r.exit_signal, r.elapsed_seconds, r.elapsed_text,
       r.submit_time, r.start_time, r.end_time, r.gpus, r.gpu_type, r.alloc_mem_bytes,
       r.alloc_cpus, r.nnodes, r.alloc_tres, r.req_tres,
       r.source_id, s.source_path, r.source_line, s.source_sha256, s.landed_at, r.time_flags
FROM review_rows r
LEFT JOIN sources s USING (source_id);
