-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: lo, hi, nulls, id_lo, id_hi: the earliest and latest submit time of its lines, whether
--      one has none, and the least and greatest job id; sacct_replaced.sql and
--      sacct_delete_replaced.sql look for the rows it replaces only in those spans (a replaced
--      row has the same submit time and job id), so they read the weeks the file reaches, not
--      the whole ledger. The job ids narrow it further where the submit times cannot: one job
--      pending for weeks stretches the submit span over every week since, while Slurm numbers
--      jobs in order, so the older weeks' row groups hold lower ids than the file's.
SELECT min(submit_time), max(submit_time), coalesce(bool_or(submit_time IS NULL), false),
       min(job_id), max(job_id)
FROM sacct_rows
WHERE source_id = $source_id;
