-- in: progress_events, allocations   params: none
-- out: temp table measured_writes(job_id, t, write_s) of the jobs read (goodput_stretches.sql
--      and checkpoint_write_events.sql join it by the job id as printed, so the events of
--      other jobs, a growing campaign's, are not parsed): t the epoch second a checkpoint event
--      was logged, write_s the blocking seconds of its write, for each checkpoint event that
--      carries the optional field `write_seconds` (docs/goodput.md); an event without it, or
--      with a value that is not a non-negative number, has no measured write. Whole seconds,
--      rounded up (a write is never shortened).
CREATE OR REPLACE TEMP TABLE measured_writes AS
SELECT DISTINCT job_id, CAST(floor(epoch(event_time)) AS BIGINT) AS t,
       CAST(ceil(TRY_CAST(raw_json ->> 'write_seconds' AS DOUBLE)) AS BIGINT) AS write_s
FROM progress_events
WHERE event = 'checkpoint'
  AND job_id IN (SELECT job_id FROM allocations)
  AND TRY_CAST(raw_json ->> 'write_seconds' AS DOUBLE) >= 0;
