-- in: sacct_rows   params: $source_id (the landing in progress), $lo, $hi, $nulls, $id_lo,
--     $id_hi (its submit and job id spans, sacct_submit_span.sql)
-- out: temp table sacct_replaced (cluster, job_id, step, submit_time, run_start_time,
--      run_end_time): earlier landings' rows that this landing replaces (same cluster, job id,
--      step and submit time: the newer record of a job wins, so an overlapping or repeated
--      export never counts a job twice), kept until sacct_delete_replaced.sql removes them so
--      that sacct_stale_weeks.sql can drop the cached weeks they ran in.
-- Cost in proportion to the landing, not the ledger (profiled on a 2.4-million-line ledger
-- landing 200,000 lines: 1.2 CPU-s for the whole-table semi-join, 0.1 s this way): the submit
-- span prunes row groups by their min/max, then one hash of the four keys, probed against the
-- new lines' hashes, leaves the exact comparison (NULLs alike) only the rows that may match.
CREATE OR REPLACE TEMP TABLE sacct_replaced AS
SELECT r.cluster, r.job_id, r.step, r.submit_time,
       coalesce(r.start_time, r.submit_time) AS run_start_time, r.run_end_time
FROM sacct_rows AS r
WHERE r.source_id <> $source_id
  AND (r.submit_time BETWEEN $lo AND $hi OR ($nulls AND r.submit_time IS NULL))
  AND r.job_id BETWEEN $id_lo AND $id_hi
  AND hash(r.cluster, r.job_id, r.step, r.submit_time) IN (
      SELECT hash(cluster, job_id, step, submit_time) FROM sacct_rows WHERE source_id = $source_id)
  AND EXISTS (SELECT 1 FROM sacct_rows AS n
              WHERE n.source_id = $source_id
                AND n.cluster = r.cluster AND n.job_id = r.job_id
                AND n.step IS NOT DISTINCT FROM r.step
                AND n.submit_time IS NOT DISTINCT FROM r.submit_time);
