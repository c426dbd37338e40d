-- in: sacct_rows   params: $starts, $ends (the weeks to compute, TIMESTAMPTZ lists), $now,
--      $ran_after (the first week's start, as a constant: migration 018)
-- out: (adds to week_allocations, per week, the GPU-seconds every allocation ran inside it:
--      an allocation line's GPUs × its seconds in the week, and a job with step lines only
--      built from its steps as allocation_records.sql builds it: the most GPUs, the longest
--      elapsed, from its first start). One filtered pass picks the lines that ran in the
--      weeks' span: an allocation line that ran in a week is among them, and a job among
--      them without its allocation line there is grouped over all its lines only if it has
--      none at all (the rare steps-only export), not every job of the span.
INSERT INTO week_allocations
WITH weeks AS (
    SELECT unnest(CAST($starts AS TIMESTAMPTZ[])) AS week_start,
           unnest(CAST($ends AS TIMESTAMPTZ[])) AS week_end
), span AS (
    SELECT min(week_start) AS lo, max(week_end) AS hi FROM weeks
), near AS (
    SELECT r.cluster, r.job_id, r.step, r.start_time, r.submit_time, r.elapsed_seconds, r.gpus
    FROM sacct_rows r, span
    -- A constant: DuckDB's zone maps skip the row groups of lines that stopped before it.
    WHERE r.run_end_time > $ran_after
      AND coalesce(r.start_time, r.submit_time) < span.hi
), step_keys AS (
    -- The jobs among them with step lines only there, in one grouping: two DISTINCTs and an
    -- EXCEPT, whose filters DuckDB also re-applied to all of `near` as one OR, took 0.07
    -- CPU-s against its 0.03 (the week after 26 of 200k lines).
    SELECT cluster, job_id FROM near GROUP BY cluster, job_id HAVING bool_and(step IS NOT NULL)
), allocs AS (
    SELECT CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) AS t0,
           elapsed_seconds AS e, gpus
    FROM near
    WHERE step IS NULL
    UNION ALL
    SELECT CAST(epoch(coalesce(min(start_time), min(submit_time))) AS BIGINT),
           max(elapsed_seconds), max(gpus)
    FROM sacct_rows
    SEMI JOIN step_keys USING (cluster, job_id)
    GROUP BY cluster, job_id
    HAVING bool_and(step IS NOT NULL)
), bounds AS (
    SELECT week_start, week_end,
           CAST(epoch(week_start) AS BIGINT) AS ws, CAST(epoch(week_end) AS BIGINT) AS we
    FROM weeks
)
SELECT b.week_start, b.week_end,
       CAST(coalesce(sum(a.gpus * (least(a.t0 + a.e, b.we) - greatest(a.t0, b.ws))), 0)
            AS HUGEINT),
       count(a.t0),
       CAST($now AS TIMESTAMPTZ)
FROM bounds b
LEFT JOIN allocs a ON a.t0 < b.we AND a.t0 + a.e > b.ws
GROUP BY b.week_start, b.week_end;
