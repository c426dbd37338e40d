-- in: job_accounting_all   params: none
-- out: one row: the earliest start (else submit) time of the allocations the review read and
--      the latest end (start + ElapsedRaw), NULL when none has a time: the span of the weeks
--      that reconcile/by_week.py asks accounting_by_week.sql for
SELECT min(coalesce(start_time, submit_time)) AS first,
       max(coalesce(start_time, submit_time) + to_seconds(elapsed_seconds)) AS last
FROM job_accounting_all;
