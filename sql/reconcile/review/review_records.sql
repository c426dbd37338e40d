-- in: sacct_records (migration 012's view), tracked_records (019's, the same over
--     tracked_lines), review_keys   params: none
-- out: temp view review_records: sacct_records' lines of the jobs review_keys names, so what
--      follows from a line is derived by the view (and by tracked_records, the same
--      derivation over the earlier tracked jobs' copies: review_rows.sql; a test holds the
--      two views alike).
CREATE OR REPLACE TEMP VIEW review_records AS
SELECT rec.* FROM sacct_records rec
SEMI JOIN (SELECT cluster, job_id FROM review_keys WHERE NOT from_tracked) k USING (cluster, job_id)
UNION ALL
SELECT rec.* FROM tracked_records rec
SEMI JOIN (SELECT cluster, job_id FROM review_keys WHERE from_tracked) k USING (cluster, job_id);
