-- in: sacct_rows, sacct_replaced   params: $source_id (the landing in progress)
-- out: the earliest and latest instant its lines ran in, and the rows it replaces (start,
--      else submit, to run_end_time): the span whose cached weeks sacct_stale_weeks.sql
--      removes, NULL when there is none (the team ledger claims the weeks of that span,
--      reconcile/history.py)
SELECT min(run_start_time), max(run_end_time)
FROM (
    SELECT coalesce(start_time, submit_time) AS run_start_time, run_end_time
    FROM sacct_rows
    WHERE source_id = $source_id
    UNION ALL
    SELECT run_start_time, run_end_time FROM sacct_replaced
);
