-- in: sacct_rows, sacct_replaced   params: $source_id (the landing in progress)
-- out: the earliest and latest instant its lines and the rows it replaces waited or ran in
--      (submit, else start, to run_end_time), NULL when there is none: the team ledger claims
--      the weeks of that span (reconcile/history.py). It holds the weeks sacct_stale_weeks.sql
--      removes, and from the submit time on: two landings of one job (the same submit time)
--      at once claim its submit week both, so one waits and then replaces the other's row.
SELECT min(run_start_time), max(run_end_time)
FROM (
    SELECT least(submit_time, coalesce(start_time, submit_time)) AS run_start_time,
           run_end_time
    FROM sacct_rows
    WHERE source_id = $source_id
    UNION ALL
    SELECT run_start_time, run_end_time FROM sacct_replaced
);
