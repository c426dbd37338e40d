-- in: sacct_rows   params: none   out: one row when any scheduler record was landed
SELECT 1 FROM sacct_rows LIMIT 1;
