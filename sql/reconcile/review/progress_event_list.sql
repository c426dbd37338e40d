-- in: progress_events   params: none
-- out: job_id, time (epoch s), event, step, resumed_from_step, accepted: every distinct event
--      (an event landed twice from two files counts once), in time order; events of one job in
--      one second in a fixed order (kind, step, …), so a split never depends on how they were
--      read (the whole list here, a few jobs in progress_events_of.sql).
SELECT DISTINCT job_id, CAST(floor(epoch(event_time)) AS BIGINT) AS t, event, step,
       resumed_from_step, accepted
FROM progress_events
ORDER BY t, job_id, event, step, resumed_from_step, accepted;
