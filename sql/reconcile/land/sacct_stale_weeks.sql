-- in: sacct_rows, sacct_replaced, week_allocations   params: $source_id (the landing in
--     progress)
-- out: (removes the cached weeks that the landing's lines ran in, and those the rows it
--      replaces ran in: from start, else submit, time to run_end_time, the interval
--      fill_weeks.sql counts an allocation in; the next review recomputes those weeks'
--      GPU-seconds. A job that waited weeks before it started changes no week it waited in.)
-- The landing's lines are first folded per day (UTC) of their start into one span (earliest
-- start, latest end): every line overlaps the week holding its start, and the line ending
-- last overlaps every week from there to its end, so a week (seven days, however aligned)
-- overlaps a line of that day exactly when it overlaps the day's span. The weeks are then
-- tested against a few dozen spans, not every line (a test per cached week and line grew
-- with the ledger: 0.05 CPU-s at 26 weeks × 200,000 lines).
DELETE FROM week_allocations AS w
WHERE EXISTS (
    SELECT 1
    FROM (SELECT min(t0) AS t0, max(run_end_time) AS run_end_time
          FROM (SELECT coalesce(start_time, submit_time) AS t0, run_end_time
                FROM sacct_rows
                WHERE source_id = $source_id
                  -- one ending before every cached week overlaps none (none cached: none)
                  AND run_end_time >= (SELECT min(week_start) FROM week_allocations))
          WHERE t0 IS NOT NULL AND run_end_time IS NOT NULL
          GROUP BY CAST(epoch(t0) AS BIGINT) // 86400) AS r
    WHERE r.t0 < w.week_end AND r.run_end_time >= w.week_start
) OR EXISTS (
    SELECT 1
    FROM sacct_replaced AS x
    WHERE x.run_start_time < w.week_end AND x.run_end_time >= w.week_start
);
