-- in: tracked_lines (migration 019), sacct_replaced   params: $source_id (the landing in progress)
-- out: (removes the copies of the rows this landing replaces, as sacct_delete_replaced.sql
--      removes the rows: tracked_lines holds only lines sacct_rows holds)
DELETE FROM tracked_lines AS r
WHERE r.source_id <> $source_id
  AND EXISTS (SELECT 1 FROM sacct_replaced AS x
              WHERE x.cluster = r.cluster AND x.job_id = r.job_id
                AND x.step IS NOT DISTINCT FROM r.step
                AND x.submit_time IS NOT DISTINCT FROM r.submit_time);
