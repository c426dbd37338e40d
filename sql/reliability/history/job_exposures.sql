-- in: allocations, registry_links (reconcile/relations.py)   params: $cluster (NULL = all)
-- out: one row per allocation that ran (a Start, ElapsedRaw > 0, at least one GPU): cluster,
--      alloc_id, job_id, gpus, elapsed_seconds (its time at risk), state, work_class and
--      diagnosed_cause; reliability/interruptions.py decides which ended in an interruption.
SELECT a.cluster, a.alloc_id, a.job_id, a.gpus, a.elapsed_seconds, a.state,
       l.work_class, l.experiment_id, l.diagnosed_cause
FROM allocations a
LEFT JOIN registry_links l USING (alloc_id)
WHERE a.start_time IS NOT NULL AND a.elapsed_seconds > 0 AND a.gpus > 0
  AND ($cluster IS NULL OR a.cluster = $cluster)
ORDER BY a.cluster, a.gpus, a.alloc_id;
