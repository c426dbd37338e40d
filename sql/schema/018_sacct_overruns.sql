-- 018: sacct_overruns keeps, per landing with a line that ran past its End (its start, else
--   submit, time plus Elapsed later than End), the most microseconds by which one did. The
--   landing does not require End >= Start + Elapsed (sacct_normalize.sql checks only that End
--   is not before Start), so a scan that keeps the lines running after a time t by their End
--   alone (`end_time IS NULL OR end_time >= t - the largest overrun`, a plain column DuckDB's
--   zone maps prune on) is exact only with this bound (reconcile/history/fill_weeks.sql,
--   reconcile/review/review_keys.sql). A landing without such a line writes nothing; a row
--   outlives the lines it was taken from (replaced or deleted), which keeps it an upper bound.
CREATE TABLE sacct_overruns (
    source_id BIGINT NOT NULL,
    overrun_us BIGINT NOT NULL
);

INSERT INTO sacct_overruns
SELECT source_id,
       max(epoch_us(coalesce(start_time, submit_time) + to_seconds(elapsed_seconds))
           - epoch_us(end_time))
FROM sacct_rows
WHERE end_time IS NOT NULL AND coalesce(start_time, submit_time) IS NOT NULL
GROUP BY source_id
HAVING max(epoch_us(coalesce(start_time, submit_time) + to_seconds(elapsed_seconds))
           - epoch_us(end_time)) > 0;
