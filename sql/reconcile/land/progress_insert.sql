-- in: progress_stage   params: provenance $source_id, $source_path, $source_sha256, $landed_at
-- out: (the good events into progress_events) and the count inserted
INSERT INTO progress_events
SELECT job_id, event_time, event, step, resumed_from_step, accepted, raw,
       $source_id, $source_path, lineno, $source_sha256, $landed_at
FROM progress_stage
WHERE problem IS NULL;
