-- in: sacct_rows, tracked_lines, review_keys   params: none
-- out: temp view review_rows (sacct_rows' columns): every line of the jobs review_keys names,
--      read where it is stored (a view: copying the lines first cost a second pass): the
--      weeks' jobs from sacct_rows (their job ids are recent, so the join's bounds skip the
--      older row groups), the earlier tracked ones from their copies in tracked_lines.
CREATE OR REPLACE TEMP VIEW review_rows AS
SELECT r.* FROM sacct_rows r
SEMI JOIN (SELECT cluster, job_id FROM review_keys WHERE NOT from_tracked) k USING (cluster, job_id)
UNION ALL
SELECT r.* FROM tracked_lines r
SEMI JOIN (SELECT cluster, job_id FROM review_keys WHERE from_tracked) k USING (cluster, job_id);
