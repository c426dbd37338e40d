-- in: week_allocations   params: $first, $before (TIMESTAMPTZ)
-- out: week_start, week_end, allocated_gpu_seconds of the cached weeks in [first, before)
SELECT week_start, week_end, allocated_gpu_seconds
FROM week_allocations
WHERE week_start >= $first AND week_end <= $before;
