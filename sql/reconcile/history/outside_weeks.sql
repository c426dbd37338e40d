-- in: sacct_rows   params: $week_start, $week_end
-- out: one row: whether any landed line started (else was submitted) outside [week_start,
--      week_end). EXISTS stops at the first such line, which on a grown ledger is in its first
--      row group (min and max over every line cost 0.07 CPU-s at 26 × 200k lines, cold).
SELECT EXISTS (SELECT 1 FROM sacct_rows
               WHERE coalesce(start_time, submit_time) < $week_start
                  OR coalesce(start_time, submit_time) >= $week_end);
