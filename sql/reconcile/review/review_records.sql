-- in: sacct_records (migration 012's view), review_rows   params: none
-- out: temp view review_records: sacct_records' lines of the jobs the review reads (the keys
--      review_rows holds), so what follows from a line is derived in one place, the view.
CREATE OR REPLACE TEMP VIEW review_records AS
SELECT rec.*
FROM sacct_records rec
SEMI JOIN (SELECT DISTINCT cluster, job_id FROM review_rows) k USING (cluster, job_id);
