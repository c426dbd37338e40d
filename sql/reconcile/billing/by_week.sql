-- in: job_billing_all
-- params: $starts, $ends (TIMESTAMPTZ lists: the ISO weeks in the cluster's zone, in order),
--         $names (their `YYYY-Www` names)
-- out: week, billing-seconds of the billed jobs the review read inside each given week (N ×
--      the job's seconds in the week, as accounting_by_week.sql splits GPU-seconds), in order;
--      a job's weeks sum to its job_billing_seconds.
WITH weeks AS (
    SELECT unnest(CAST($starts AS TIMESTAMPTZ[])) AS week_start,
           unnest(CAST($ends AS TIMESTAMPTZ[])) AS week_end,
           unnest(CAST($names AS VARCHAR[])) AS week
), bounds AS (
    SELECT week, CAST(epoch(week_start) AS BIGINT) AS ws, CAST(epoch(week_end) AS BIGINT) AS we
    FROM weeks
), jobs AS (
    SELECT billing, t0, elapsed_seconds AS e
    FROM job_billing_all
    WHERE billing IS NOT NULL AND t0 IS NOT NULL AND elapsed_seconds > 0
)
SELECT b.week,
       CAST(coalesce(sum(j.billing * greatest(0, least(j.t0 + j.e, b.we) - greatest(j.t0, b.ws))),
                     0) AS HUGEINT) AS billing_seconds
FROM bounds b
LEFT JOIN jobs j ON j.t0 < b.we AND j.t0 + j.e > b.ws
GROUP BY b.week, b.ws
ORDER BY b.ws;
