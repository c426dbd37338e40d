-- in: review_keys, tracked_lines, allocations   params: $week_start (the reviewed weeks' start)
-- out: alloc_id, cluster, job_id: the allocations of the tracked jobs read from tracked_lines
--      (named, not run in the weeks: review_rows.sql reads their lines there, and so does
--      this) that this review may close: every line of the job, and every allocation built
--      from them, started before $week_start and ran no second after it (start + Elapsed,
--      run_end_time), so its rows no longer depend on a later week reviewed; and no other job
--      (read, or named at all) has its job id or JobIDRaw (an event of that id could belong
--      to either).
WITH lines AS (
    SELECT cluster, job_id
    FROM tracked_lines
    SEMI JOIN (SELECT cluster, job_id FROM review_keys WHERE from_tracked) USING (cluster, job_id)
    GROUP BY cluster, job_id
    HAVING bool_and(run_end_time IS NOT NULL AND run_end_time <= $week_start
                    AND coalesce(start_time, submit_time) < $week_start)
), built AS (
    -- The allocation too, as allocation_records.sql builds it: a job exported with steps only
    -- runs from its earliest step to that plus its longest Elapsed, which can end later than
    -- any of its lines does (a step without a Start ends, as a line, at its Submit + Elapsed).
    -- (No DISTINCT: the EXCEPT below is a set difference.)
    SELECT cluster, job_id
    FROM allocations
    WHERE coalesce(start_time, submit_time) >= $week_start
       OR coalesce(start_time, submit_time) + to_seconds(elapsed_seconds) > $week_start
), open_keys AS (
    SELECT cluster, job_id FROM lines
    EXCEPT SELECT cluster, job_id FROM built
), their_ids AS (
    -- The ids a candidate goes by (its job id, its lines' JobIDRaw: its allocation was built
    -- from those lines): only these can be shared with it, so only their entries are counted.
    -- Only tested with IN: duplicates change nothing.
    SELECT job_id AS id FROM open_keys
    UNION ALL SELECT job_id_raw FROM tracked_lines SEMI JOIN open_keys USING (cluster, job_id)
), ids AS (
    -- Every named job's lines, whenever they ran (tracked_lines), and every job read: a job
    -- that starts after the weeks can take an event of the id as well.
    SELECT job_id AS id, cluster, job_id FROM allocations
    WHERE job_id IN (SELECT id FROM their_ids)
    UNION SELECT job_id_raw, cluster, job_id FROM allocations
    WHERE job_id_raw IN (SELECT id FROM their_ids)
    UNION SELECT job_id, cluster, job_id FROM tracked_lines
    WHERE job_id IN (SELECT id FROM their_ids)
    UNION SELECT job_id_raw, cluster, job_id FROM tracked_lines
    WHERE job_id_raw IN (SELECT id FROM their_ids)
), shared AS (
    SELECT DISTINCT i.cluster, i.job_id
    FROM ids i
    JOIN (SELECT id FROM ids GROUP BY id HAVING count(*) > 1) s USING (id)
)
SELECT a.alloc_id, a.cluster, a.job_id
FROM allocations a
SEMI JOIN open_keys USING (cluster, job_id)
ANTI JOIN shared USING (cluster, job_id);
