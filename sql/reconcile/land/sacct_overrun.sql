-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: (adds to sacct_overruns the most microseconds one of its lines ran past its End, when
--      one did: start, else submit, time + Elapsed later than End; migration 018 says why)
INSERT INTO sacct_overruns
SELECT $source_id,
       max(epoch_us(coalesce(start_time, submit_time) + to_seconds(elapsed_seconds))
           - epoch_us(end_time))
FROM sacct_rows
WHERE source_id = $source_id
  AND end_time IS NOT NULL AND coalesce(start_time, submit_time) IS NOT NULL
HAVING max(epoch_us(coalesce(start_time, submit_time) + to_seconds(elapsed_seconds))
           - epoch_us(end_time)) > 0;
