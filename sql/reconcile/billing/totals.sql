-- in: job_billing   params: none
-- out: one row: the week's allocations with a recorded billing (`billed_jobs`) and without
--      (`unbilled_jobs`), and their billing-seconds inside the week (`allocated`, exact).
SELECT count(*) FILTER (WHERE billing IS NOT NULL) AS billed_jobs,
       count(*) FILTER (WHERE billing IS NULL) AS unbilled_jobs,
       CAST(coalesce(sum(allocated_billing_seconds), 0) AS HUGEINT) AS allocated
FROM job_billing
WHERE in_week;
