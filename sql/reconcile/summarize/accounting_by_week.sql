-- in: job_accounting_all (reconcile/relations.py)
-- params: $starts, $ends (TIMESTAMPTZ lists: the ISO weeks in the cluster's zone, in order),
--         $names (their `YYYY-Www` names)
-- out: week, allocated / useful / recovery / lost / unverified GPU-seconds of the jobs the
--      review read, one row per given week in order (reconcile/by_week.py adds the untracked
--      jobs it did not read). A job counts in each week by its seconds there, each class on
--      its own stretch of the timeline (recovery, useful, lost, unverified; as in
--      job_accounting.sql), so a job's weeks sum to its allocation and the weeks inside the
--      reviewed ones sum to the review's totals, class by class.
WITH weeks AS (
    SELECT unnest(CAST($starts AS TIMESTAMPTZ[])) AS week_start,
           unnest(CAST($ends AS TIMESTAMPTZ[])) AS week_end,
           unnest(CAST($names AS VARCHAR[])) AS week
), bounds AS (
    SELECT week, CAST(epoch(week_start) AS BIGINT) AS ws, CAST(epoch(week_end) AS BIGINT) AS we
    FROM weeks
), jobs AS (
    SELECT gpus, elapsed_seconds AS e,
           CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) AS t0,
           job_recovery_seconds AS r, job_useful_seconds AS u, job_lost_seconds AS l,
           job_unverified_seconds AS v
    FROM job_accounting_all
    WHERE coalesce(start_time, submit_time) IS NOT NULL AND elapsed_seconds > 0
), parts AS (
    SELECT b.week, b.ws,
           j.gpus * greatest(0, least(t0 + e, we) - greatest(t0, ws)) AS a,
           j.gpus * greatest(0, least(t0 + r, we) - greatest(t0, ws)) AS rc,
           j.gpus * greatest(0, least(t0 + r + u, we) - greatest(t0 + r, ws)) AS us,
           j.gpus * greatest(0, least(t0 + r + u + l, we) - greatest(t0 + r + u, ws)) AS lo,
           j.gpus * greatest(0, least(t0 + r + u + l + v, we) - greatest(t0 + r + u + l, ws))
               AS un
    FROM bounds b
    LEFT JOIN jobs j ON j.t0 < b.we AND j.t0 + j.e > b.ws
)
SELECT week,
       CAST(coalesce(sum(a), 0) AS HUGEINT) AS allocated,
       CAST(coalesce(sum(us), 0) AS HUGEINT) AS useful,
       CAST(coalesce(sum(rc), 0) AS HUGEINT) AS recovery,
       CAST(coalesce(sum(lo), 0) AS HUGEINT) AS lost,
       CAST(coalesce(sum(un), 0) AS HUGEINT) AS unverified
FROM parts
GROUP BY week, ws
ORDER BY ws;
