-- in: sacct_rows, sacct_replaced   params: $source_id (the landing in progress), $lo, $hi,
--     $nulls, $id_lo, $id_hi (its submit and job id spans, sacct_submit_span.sql)
-- out: (removes the earlier landings' rows that sacct_replaced.sql found this landing
--      replaces: the submit span prunes row groups, a hash of the four keys probed against
--      the few replaced keys' hashes leaves the exact comparison only the rows that match)
DELETE FROM sacct_rows AS r
WHERE r.source_id <> $source_id
  AND (r.submit_time BETWEEN $lo AND $hi OR ($nulls AND r.submit_time IS NULL))
  AND r.job_id BETWEEN $id_lo AND $id_hi
  AND hash(r.cluster, r.job_id, r.step, r.submit_time) IN (
      SELECT hash(cluster, job_id, step, submit_time) FROM sacct_replaced)
  AND EXISTS (SELECT 1 FROM sacct_replaced AS x
              WHERE x.cluster = r.cluster AND x.job_id = r.job_id
                AND x.step IS NOT DISTINCT FROM r.step
                AND x.submit_time IS NOT DISTINCT FROM r.submit_time);
