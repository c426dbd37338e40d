-- in: sacct_rows   params: none
-- out: the earliest start (else submit) time of any landed line, NULL when none
SELECT min(coalesce(start_time, submit_time)) FROM sacct_rows;
