-- in: sacct_rows   params: $started (the earliest start of any landed line:
--     first_started.sql; NULL when no line has one)
-- out: the earliest start (else submit) time of any landed line, NULL when none. Only a line
--      without a start, submitted before $started, can come before it: a constant bound on
--      submit_time that DuckDB's zone maps skip every later row group with (the minimum of
--      coalesce(start_time, submit_time) over every line cost 0.09 CPU-s at 26 × 200,000).
SELECT least($started, (SELECT min(submit_time) FROM sacct_rows
                        WHERE start_time IS NULL
                          AND (submit_time < $started OR $started IS NULL)));
