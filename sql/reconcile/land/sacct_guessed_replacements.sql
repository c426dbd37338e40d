-- in: sacct_rows, sources   params: $source_id (the landing in progress, a headerless file
--     read in the default field order because no --sacct-fields named its columns)
-- out: (adds to sacct_rejected each of its rows that would replace a landed row of another
--      source (same cluster, job id, step and submit time) with different values, naming
--      that row; sacct_drop_duplicates then removes them and they are quarantined: a row
--      from a file whose columns were assumed never replaces a landed one)
INSERT INTO sacct_rejected (lineno, problem)
SELECT n.source_line,
       concat('would replace job ', n.job_id, coalesce('.' || n.step, ''), ' landed from ',
              s.source_path, ' line ', r.source_line, ', but this file has no header, so its ',
              'columns are assumed; name them with --sacct-fields to let it replace that row')
FROM sacct_rows AS n
JOIN sacct_rows AS r
  ON r.source_id <> n.source_id
 AND r.cluster = n.cluster AND r.job_id = n.job_id
 AND r.step IS NOT DISTINCT FROM n.step
 AND r.submit_time IS NOT DISTINCT FROM n.submit_time
LEFT JOIN sources AS s ON s.source_id = r.source_id
WHERE n.source_id = $source_id
  AND (n.job_id_raw, n.name, n.account, n.partition, n.state, n.state_text, n.exit_status,
       n.exit_signal, n.elapsed_seconds, n.start_time, n.end_time, n.gpus, n.gpu_type,
       n.alloc_mem_bytes, n.alloc_cpus, n.nnodes, n.alloc_tres, n.req_tres)
      IS DISTINCT FROM
      (r.job_id_raw, r.name, r.account, r.partition, r.state, r.state_text, r.exit_status,
       r.exit_signal, r.elapsed_seconds, r.start_time, r.end_time, r.gpus, r.gpu_type,
       r.alloc_mem_bytes, r.alloc_cpus, r.nnodes, r.alloc_tres, r.req_tres);
