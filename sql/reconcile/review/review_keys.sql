-- in: sacct_rows, registry, progress_events, run_estimates
-- params: $week_start, $week_end (the reviewed weeks)
-- out: temp table review_keys(cluster, job_id): the jobs a review of some weeks reads. A job is
--      read when one of its lines ran in [week_start, week_end) (or started in it), or when
--      it started before week_end and the registry, the progress events or an estimate's run
--      id name it (the campaign to date); the other earlier jobs are counted by
--      week_allocations (reconcile/history.py). So a review reads its weeks' jobs and the
--      tracked ones, not the whole ledger. A review of everything landed needs no keys
--      (review_rows_all.sql, review_records_all.sql).
CREATE OR REPLACE TEMP TABLE review_keys AS
WITH named AS (
    SELECT job_id FROM registry
    UNION SELECT job_id FROM progress_events
    UNION SELECT run_id FROM run_estimates
), keys AS (
    SELECT cluster, job_id
    FROM sacct_rows
    -- run_end_time (migration 018) against a constant: DuckDB's zone maps skip the row groups
    -- of lines that stopped before the weeks (one that started in them stopped after
    -- week_start too).
    WHERE run_end_time >= $week_start
      AND coalesce(start_time, submit_time) < $week_end
      AND (coalesce(start_time, submit_time) >= $week_start OR run_end_time > $week_start)
    -- The named jobs as the registry links them (registry_links.sql): the job as printed, its
    -- JobIDRaw, its array or het job; one join each (an OR of four IN tests took 1.5× longer).
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r JOIN named n ON r.job_id = n.job_id
    WHERE coalesce(r.start_time, r.submit_time) < $week_end
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r JOIN named n ON r.job_id_raw = n.job_id
    WHERE coalesce(r.start_time, r.submit_time) < $week_end
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r JOIN named n ON split_part(r.job_id, '_', 1) = n.job_id
    WHERE contains(r.job_id, '_') AND coalesce(r.start_time, r.submit_time) < $week_end
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r JOIN named n ON split_part(r.job_id, '+', 1) = n.job_id
    WHERE contains(r.job_id, '+') AND coalesce(r.start_time, r.submit_time) < $week_end
)
SELECT cluster, job_id FROM keys;
