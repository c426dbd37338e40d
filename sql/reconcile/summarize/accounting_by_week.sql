-- in: job_accounting (reconcile/relations.py)   params: none
-- out: week (ISO, UTC), allocated/useful/recovery/lost/unverified GPU-hours, one row per week
--      in order (Review.accounting_by_week), over every whole allocation (not the reviewed
--      week's part). A job counts in each week it ran in by its seconds there, each class on
--      its own stretch of the timeline (recovery, useful, lost, unverified; as in
--      job_accounting.sql), so the weeks sum to the allocation; a job of no length counts in
--      the week of its start. Only jobs that cross a week bound are expanded to their weeks.
WITH jobs AS (
    SELECT gpus, elapsed_seconds AS e,
           CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) AS t0,
           job_recovery_seconds AS r, job_useful_seconds AS u, job_lost_seconds AS l,
           job_unverified_seconds AS v,
           -- Monday 00:00 UTC of the first and of the last week the job ran in (epoch s;
           -- 1970-01-05 was a Monday).
           (CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) - 345600) // 604800
               * 604800 + 345600 AS w0,
           (CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT)
                + greatest(elapsed_seconds - 1, 0) - 345600) // 604800 * 604800 + 345600 AS w1
    FROM job_accounting
), spans AS (
    SELECT gpus, e, t0, r, u, l, v, w0 AS ws FROM jobs WHERE w0 = w1
    UNION ALL
    SELECT gpus, e, t0, r, u, l, v, unnest(range(w0, w1 + 1, 604800)) AS ws
    FROM jobs WHERE w0 < w1
), parts AS (
    SELECT ws,
           gpus * greatest(0, least(t0 + e, ws + 604800) - greatest(t0, ws)) AS a,
           gpus * greatest(0, least(t0 + r, ws + 604800) - greatest(t0, ws)) AS rc,
           gpus * greatest(0, least(t0 + r + u, ws + 604800) - greatest(t0 + r, ws)) AS us,
           gpus * greatest(0, least(t0 + r + u + l, ws + 604800) - greatest(t0 + r + u, ws))
               AS lo,
           gpus * greatest(0, least(t0 + r + u + l + v, ws + 604800)
                              - greatest(t0 + r + u + l, ws)) AS un
    FROM spans
)
SELECT strftime(to_timestamp(ws), '%G-W%V') AS week,
       sum(a) / 3600.0 AS allocated_gpu_hours,
       sum(us) / 3600.0 AS useful_gpu_hours,
       sum(rc) / 3600.0 AS recovery_gpu_hours,
       sum(lo) / 3600.0 AS lost_gpu_hours,
       sum(un) / 3600.0 AS unverified_gpu_hours
FROM parts
WHERE ws IS NOT NULL
GROUP BY ALL
ORDER BY week;
