-- in: progress_events   params: none
-- out: job_id, t (epoch s the checkpoint event was logged), write_s: the blocking seconds of
--      each checkpoint write whose event carries the optional field `write_seconds`
--      (docs/goodput.md); an event without it, or with a value that is not a non-negative
--      number, has no measured write. Whole seconds, rounded up (a write is never shortened).
SELECT DISTINCT job_id, CAST(floor(epoch(event_time)) AS BIGINT) AS t,
       CAST(ceil(TRY_CAST(raw_json ->> 'write_seconds' AS DOUBLE)) AS BIGINT) AS write_s
FROM progress_events
WHERE event = 'checkpoint'
  AND TRY_CAST(raw_json ->> 'write_seconds' AS DOUBLE) >= 0
ORDER BY t, job_id;
