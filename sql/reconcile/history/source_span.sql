-- in: sacct_rows   params: $source_ids
-- out: the earliest and latest start (else submit) time of the lines those sources landed
SELECT min(coalesce(start_time, submit_time)), max(coalesce(start_time, submit_time))
FROM sacct_rows
WHERE source_id IN (SELECT unnest(CAST($source_ids AS BIGINT[])));
