-- in: sacct_rows, tracked_lines and tracked_names (migration 019, brought up to date:
--     reconcile/tracked_lines.py), closed_keys (reconcile/closed_jobs.py)
-- params: $week_start, $week_end (the reviewed weeks)
-- out: temp table review_keys(cluster, job_id, from_tracked): the jobs a review of some weeks
--      reads. A job is read when one of its lines ran in [week_start, week_end) (or started in
--      it), or when it started before week_end and the registry, the progress events or an
--      estimate's run id name it (the campaign to date); the other earlier jobs are counted by
--      week_allocations (reconcile/history.py). So a review reads its weeks' jobs and the
--      tracked ones, not the whole ledger. from_tracked: a tracked job that did not run in
--      the weeks, whose lines review_rows.sql reads from tracked_lines (which holds every line
--      of every named job) rather than from sacct_rows. The closed tracked jobs (closed_keys:
--      ended before an earlier review's weeks, their rows kept) are not read again. A review
--      of everything landed needs no keys (review_rows_all.sql, review_records_all.sql).
CREATE OR REPLACE TEMP TABLE review_keys AS
WITH named AS (
    -- Every name the registry, the progress events and the estimates give, as catch_up has
    -- just recorded them (names are never removed), without reading those tables whole.
    SELECT job_id FROM tracked_names
), week AS (
    SELECT DISTINCT cluster, job_id
    FROM sacct_rows
    -- run_end_time (migration 018) against a constant: DuckDB's zone maps skip the row groups
    -- of lines that stopped before the weeks (one that started in them stopped after
    -- week_start too).
    WHERE run_end_time >= $week_start
      AND coalesce(start_time, submit_time) < $week_end
      AND (coalesce(start_time, submit_time) >= $week_start OR run_end_time > $week_start)
), open_lines AS MATERIALIZED (
    -- The named jobs' lines but the closed jobs' (left out below in any case): the four
    -- joins then read the open jobs' lines, not every tracked line of the campaign to date.
    SELECT r.cluster, r.job_id, r.job_id_raw FROM tracked_lines r
    ANTI JOIN closed_keys USING (cluster, job_id)
    WHERE coalesce(r.start_time, r.submit_time) < $week_end
), tracked AS (
    -- The named jobs as the registry links them (registry_links.sql): the job as printed, its
    -- JobIDRaw, its array or het job; one join each (an OR of four IN tests took 1.5× longer).
    SELECT r.cluster, r.job_id FROM open_lines r JOIN named n ON r.job_id = n.job_id
    UNION
    SELECT r.cluster, r.job_id FROM open_lines r JOIN named n ON r.job_id_raw = n.job_id
    UNION
    SELECT r.cluster, r.job_id FROM open_lines r
    JOIN named n ON split_part(r.job_id, '_', 1) = n.job_id
    WHERE contains(r.job_id, '_')
    UNION
    SELECT r.cluster, r.job_id FROM open_lines r
    JOIN named n ON split_part(r.job_id, '+', 1) = n.job_id
    WHERE contains(r.job_id, '+')
)
SELECT cluster, job_id, false AS from_tracked FROM week
UNION ALL
SELECT cluster, job_id, true AS from_tracked
FROM (SELECT cluster, job_id FROM tracked
      EXCEPT SELECT cluster, job_id FROM week);
