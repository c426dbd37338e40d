-- in: allocations, registry_links, progress_events, tracked_splits (migration 016)
-- params: $tolerance_s (the review's clock tolerance)
-- out: the allocations that have application progress (joined by job id as printed or by
--      JobIDRaw), with what the accounting needs, epoch seconds for times, in start order;
--      with the fingerprint of their events
--      (event_count, event_source_max: the events of their job id and JobIDRaw) and, where
--      tracked_splits holds a split computed from the same allocation fields, events and
--      tolerance (and with the restart of migration 020), its high_water_in, previous_in,
--      max_step and tracked_json (split_cache.py checks the chain's state before reusing it).
WITH ids AS (
    SELECT job_id FROM allocations UNION ALL SELECT job_id_raw FROM allocations
), ev AS (
    -- The events of the jobs read only (by job id as printed or JobIDRaw, as below): one semi
    -- join, whose key range DuckDB pushes into the scan, so the row groups of the events of
    -- earlier jobs are skipped (an OR of two IN tests read every event of the campaign).
    SELECT job_id, count(*) AS n, max(source_id) AS src FROM progress_events
    SEMI JOIN ids USING (job_id)
    GROUP BY job_id
), pa AS MATERIALIZED (
    SELECT a.alloc_id, a.cluster, a.job_id, a.job_id_raw, a.gpus, a.state, a.elapsed_seconds,
           CAST(epoch(a.start_time) AS BIGINT) AS start_s, a.start_time,
           l.experiment_id, l.work_class, l.result_valid
    FROM allocations a
    LEFT JOIN registry_links l USING (alloc_id)
    WHERE a.start_time IS NOT NULL
      AND (a.job_id IN (SELECT job_id FROM ev) OR a.job_id_raw IN (SELECT job_id FROM ev))
), fp AS (
    SELECT pa.*,
           coalesce(e1.n, 0) + CASE WHEN pa.job_id_raw <> pa.job_id THEN coalesce(e2.n, 0)
                                    ELSE 0 END AS event_count,
           CASE WHEN pa.job_id_raw <> pa.job_id THEN greatest(e1.src, e2.src)
                ELSE e1.src END AS event_source_max
    FROM pa
    LEFT JOIN ev e1 ON e1.job_id = pa.job_id
    LEFT JOIN ev e2 ON e2.job_id = pa.job_id_raw
), splits AS (
    -- The stored splits of these jobs only, not of every tracked job of the campaign to date.
    SELECT * FROM tracked_splits WHERE job_id IN (SELECT job_id FROM pa)
)
SELECT fp.alloc_id, fp.cluster, fp.job_id, fp.job_id_raw, fp.gpus, fp.state,
       fp.elapsed_seconds, fp.start_s, fp.experiment_id, fp.work_class, fp.result_valid,
       fp.event_count, fp.event_source_max,
       c.high_water_in, c.previous_in, c.max_step, c.tracked_json
FROM fp
LEFT JOIN splits c
  ON c.cluster = fp.cluster AND c.job_id = fp.job_id AND c.start_s = fp.start_s
 AND c.job_id_raw IS NOT DISTINCT FROM fp.job_id_raw
 AND c.gpus IS NOT DISTINCT FROM fp.gpus
 AND c.elapsed_seconds IS NOT DISTINCT FROM fp.elapsed_seconds
 AND c.state IS NOT DISTINCT FROM fp.state
 AND c.experiment_id IS NOT DISTINCT FROM fp.experiment_id
 AND c.work_class IS NOT DISTINCT FROM fp.work_class
 AND c.result_valid IS NOT DISTINCT FROM fp.result_valid
 AND c.tolerance_s = $tolerance_s
 AND c.event_count = fp.event_count
 AND c.event_source_max IS NOT DISTINCT FROM fp.event_source_max
 AND c.restart_s IS NOT NULL  -- stored before migration 020: split again
ORDER BY fp.start_time, fp.alloc_id;
