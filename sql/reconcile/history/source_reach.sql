-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: the earliest and latest instant its lines ran or waited in (submit, else start, to
--      start + elapsed): the span whose cached weeks sacct_stale_weeks.sql removes, NULL when
--      it landed none (the team ledger claims the weeks of that span, reconcile/history.py)
SELECT min(least(submit_time, coalesce(start_time, submit_time))),
       max(coalesce(start_time, submit_time) + to_seconds(coalesce(elapsed_seconds, 0)))
FROM sacct_rows
WHERE source_id = $source_id;
