-- in: sacct_rows, week_allocations   params: $source_id (the landing in progress)
-- out: (removes the cached weeks that the landing's records ran in, from submit time to end:
--      a record it replaces has the same submit time and ran no later, so its weeks are among
--      them; the next review recomputes those weeks' GPU-seconds)
DELETE FROM week_allocations AS w
WHERE EXISTS (
    SELECT 1
    FROM sacct_rows AS r
    WHERE r.source_id = $source_id
      AND least(r.submit_time, coalesce(r.start_time, r.submit_time)) < w.week_end
      AND coalesce(r.start_time, r.submit_time) + to_seconds(coalesce(r.elapsed_seconds, 0))
          >= w.week_start
);
