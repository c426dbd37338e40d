-- in: sacct_rows, sources, registry, progress_events, run_estimates
-- params: $week_start, $week_end (the reviewed weeks; NULL = everything landed, also passed
--         when the weeks hold every landed line: then the rows are copied without a join)
-- out: temp table review_rows (sacct_rows' columns): every line of the jobs the review reads. A job is read when one of its
--      lines ran in [week_start, week_end) (or started in it), or when it started before
--      week_end and the registry, the progress events or an estimate's run id name it (the
--      campaign to date); the other earlier jobs are counted by week_allocations
--      (reconcile/history.py). So a review reads its weeks' jobs and the tracked ones, not the
--      whole ledger.
CREATE OR REPLACE TEMP TABLE review_rows AS
WITH named AS (
    SELECT job_id FROM registry
    UNION SELECT job_id FROM progress_events
    UNION SELECT run_id FROM run_estimates
), keys AS (
    SELECT cluster, job_id
    FROM sacct_rows
    WHERE coalesce(start_time, submit_time) < $week_end
      AND (coalesce(start_time, submit_time) >= $week_start
           OR coalesce(start_time, submit_time) + to_seconds(elapsed_seconds) > $week_start)
    UNION
    SELECT cluster, job_id
    FROM sacct_rows
    WHERE coalesce(start_time, submit_time) < $week_end
      AND (job_id IN (SELECT job_id FROM named)
           OR job_id_raw IN (SELECT job_id FROM named)
           OR (contains(job_id, '_') AND split_part(job_id, '_', 1) IN (SELECT job_id FROM named))
           OR (contains(job_id, '+') AND split_part(job_id, '+', 1) IN (SELECT job_id FROM named)))
)
SELECT * FROM sacct_rows WHERE $week_start IS NULL
UNION ALL
SELECT r.* FROM sacct_rows r SEMI JOIN keys USING (cluster, job_id) WHERE $week_start IS NOT NULL;
