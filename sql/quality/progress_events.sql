-- in: progress_events   params: none   out: the landed progress events checked for quality
SELECT job_id, event_time, event, step, resumed_from_step
FROM progress_events;
