-- in: allocations, registry_links, progress_events   params: none
-- out: the allocations that have application progress (joined by job id as printed or by
--      JobIDRaw), with what the accounting needs; epoch seconds for times.
SELECT a.alloc_id, a.cluster, a.job_id, a.job_id_raw, a.gpus, a.state, a.elapsed_seconds,
       CAST(epoch(a.start_time) AS BIGINT) AS start_s,
       l.experiment_id, l.work_class, l.result_valid
FROM allocations a
LEFT JOIN registry_links l USING (alloc_id)
WHERE a.start_time IS NOT NULL
  AND (a.job_id IN (SELECT job_id FROM progress_events)
       OR a.job_id_raw IN (SELECT job_id FROM progress_events))
ORDER BY a.start_time, a.alloc_id;
