-- in: job_billing_all   params: none
-- out: work_class, billing-seconds of the campaign to date (before the reviewed week's end,
--      as actual_by_class.sql counts GPU-seconds), jobs with a recorded billing; one row a
--      class that has a billed job, in class order.
SELECT work_class,
       CAST(sum(to_date_billing_seconds) AS HUGEINT) AS billing_seconds,
       count(*) AS billed_jobs
FROM job_billing_all
WHERE to_date AND billing IS NOT NULL
GROUP BY work_class
ORDER BY work_class;
