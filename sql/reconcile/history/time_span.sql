-- in: sacct_rows   params: none
-- out: the earliest and the latest start (else submit) time of any landed line
SELECT min(coalesce(start_time, submit_time)), max(coalesce(start_time, submit_time))
FROM sacct_rows;
