-- in: sacct_records (migration 012's view), review_keys   params: none
-- out: temp view review_records: sacct_records' lines of the jobs review_keys names, so what
--      follows from a line is derived in one place, the view.
CREATE OR REPLACE TEMP VIEW review_records AS
SELECT rec.* FROM sacct_records rec SEMI JOIN review_keys k USING (cluster, job_id);
