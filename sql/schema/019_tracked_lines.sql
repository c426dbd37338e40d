-- 019: tracked_lines keeps a copy of every sacct_rows line of the jobs the registry, the
--   progress events or an estimate's run id name (the tracked jobs, as review_keys.sql
--   links them), so a week's review reads the campaign to date's tracked jobs from this
--   small table instead of scanning every line of the ledger for them (their lines are spread
--   over every week's row groups, so no zone map skips any). A review fills it
--   (reconcile/tracked_lines.py): the lines of newly landed sacct sources (tracked_sources)
--   and of newly landed names (tracked_names), matched against each other and against what
--   is already here. A landing that replaces a line deletes its copy too
--   (sql/reconcile/land/tracked_delete_replaced.sql). It may hold lines of a job no longer
--   named (a replaced line whose JobIDRaw changed): the review matches the names again over
--   these lines, so an extra line is never read as tracked.
--   Its columns are sacct_rows' (a later change to sacct_rows changes both: a test checks).
CREATE TABLE tracked_lines AS SELECT * FROM sacct_rows LIMIT 0;

CREATE TABLE tracked_sources (source_id BIGINT NOT NULL);

CREATE TABLE tracked_names (job_id VARCHAR NOT NULL);

-- sacct_records' derivation (migration 012) over the copies: a test checks the two read alike.
CREATE VIEW tracked_records AS
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
FROM tracked_lines r
LEFT JOIN sources s USING (source_id);
