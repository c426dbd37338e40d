-- 008: sacct_rows keeps what each line printed and what was parsed from it, with its source
--   id and line; what follows from those is read through the view sacct_records instead of
--   being stored a million times: the array and het parts of the job id and the uid of
--   "CANCELLED by <uid>" (string functions of job_id and state_text), and the source's path,
--   content hash and landing time (one row in sources). Writing the eight columns cost about a
--   sixth of the landing's insert: 3.06 -> 2.64 s for a million lines (docs/reconcile.md).
ALTER TABLE sacct_rows DROP COLUMN array_job_id;
ALTER TABLE sacct_rows DROP COLUMN array_task;
ALTER TABLE sacct_rows DROP COLUMN het_job_id;
ALTER TABLE sacct_rows DROP COLUMN het_offset;
ALTER TABLE sacct_rows DROP COLUMN cancelled_by;
ALTER TABLE sacct_rows DROP COLUMN source_path;
ALTER TABLE sacct_rows DROP COLUMN source_sha256;
ALTER TABLE sacct_rows DROP COLUMN landed_at;

-- Every landed sacct line with all it says: the columns of 007's sacct_rows, in their order.
-- JobID = base[_arraytask][+hetoffset] on the allocation id (sacct(1)).
CREATE VIEW sacct_records AS
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
       r.source_id, s.source_path, r.source_line, s.source_sha256, s.landed_at
FROM sacct_rows r
LEFT JOIN sources s USING (source_id);
