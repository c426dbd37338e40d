-- in: progress_events   params: $job_ids (VARCHAR list)
-- out: progress_event_list.sql's rows for those job ids only: the events of the tracked
--      allocations whose split is not reused from tracked_splits, in the same order.
SELECT DISTINCT job_id, CAST(floor(epoch(event_time)) AS BIGINT) AS t, event, step,
       resumed_from_step, accepted
FROM progress_events
WHERE job_id IN (SELECT unnest(CAST($job_ids AS VARCHAR[])))
ORDER BY t, job_id, event, step, resumed_from_step, accepted;
