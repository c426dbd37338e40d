-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: lo, hi, nulls: the earliest and latest submit time of its lines, and whether one has
--      none; sacct_delete_replaced.sql looks for the rows it replaces only in that span (a
--      replaced row has the same submit time), so it reads the weeks the file reaches, not
--      the whole ledger
SELECT min(submit_time), max(submit_time), coalesce(bool_or(submit_time IS NULL), false)
FROM sacct_rows
WHERE source_id = $source_id;
