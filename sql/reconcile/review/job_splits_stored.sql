-- in: allocations, job_splits, tracked_splits (migration 016)   params: $alloc_ids
-- out: (fills job_splits for those allocations from their stored splits, matched by cluster,
--      job id and start; split_cache.py passes only allocations that no other shares that with)
INSERT INTO job_splits
SELECT a.alloc_id, c.useful_s, c.recovery_s, c.lost_s, c.unverified_s, c.flags,
       c.recovery_caused_by, c.app_start, c.app_end, c.app_elapsed_seconds,
       c.resumed_from_step, c.high_water_step, c.last_checkpoint_step, c.max_step,
       c.restart_s
FROM allocations a
JOIN tracked_splits c
  ON c.cluster = a.cluster AND c.job_id = a.job_id
 AND c.start_s = CAST(epoch(a.start_time) AS BIGINT)
WHERE a.alloc_id IN (SELECT unnest(CAST($alloc_ids AS BIGINT[])));
