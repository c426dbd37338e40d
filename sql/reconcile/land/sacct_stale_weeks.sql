-- in: sacct_rows, sacct_replaced, week_allocations   params: $source_id (the landing in
--     progress)
-- out: (removes the cached weeks that the landing's lines ran in, and those the rows it
--      replaces ran in: from start, else submit, time to run_end_time, the interval
--      fill_weeks.sql counts an allocation in; the next review recomputes those weeks'
--      GPU-seconds. A job that waited weeks before it started changes no week it waited in.)
DELETE FROM week_allocations AS w
WHERE EXISTS (
    SELECT 1
    FROM sacct_rows AS r
    WHERE r.source_id = $source_id
      AND coalesce(r.start_time, r.submit_time) < w.week_end
      AND r.run_end_time >= w.week_start
) OR EXISTS (
    SELECT 1
    FROM sacct_replaced AS x
    WHERE x.run_start_time < w.week_end AND x.run_end_time >= w.week_start
);
