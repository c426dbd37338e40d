-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: (removes earlier landings' rows that this landing replaces: same cluster, job id, step
--      and submit time; the newer record of a job wins, so an overlapping or repeated export
--      never counts a job twice)
DELETE FROM sacct_rows AS r
WHERE r.source_id <> $source_id
  AND EXISTS (SELECT 1 FROM sacct_rows AS n
              WHERE n.source_id = $source_id
                AND n.cluster = r.cluster AND n.job_id = r.job_id
                AND n.step IS NOT DISTINCT FROM r.step
                AND n.submit_time IS NOT DISTINCT FROM r.submit_time);
