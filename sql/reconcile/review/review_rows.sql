-- in: sacct_rows, review_keys   params: none
-- out: temp view review_rows (sacct_rows' columns): every line of the jobs review_keys names,
--      read where it is stored (a view: copying the lines first cost a second pass).
CREATE OR REPLACE TEMP VIEW review_rows AS
SELECT r.* FROM sacct_rows r SEMI JOIN review_keys k USING (cluster, job_id);
