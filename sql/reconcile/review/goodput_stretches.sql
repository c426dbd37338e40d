-- in: job_splits, allocations, measured_writes   params: none
-- out: temp table goodput_stretches(alloc_id, cause, start_s, end_s): the stretches
--      [start_s, end_s) (epoch s) of one tracked allocation that a badput cause names inside
--      its class; goodput_by_week.sql takes the rest of each class from job_accounting.
--      'restart': the recovery from the allocation start to the first new step (job_splits'
--      restart_s, timelines.restart_seconds). 'checkpoint_writes': the blocking writes inside
--      the useful stretch (t0 + recovery, t0 + recovery + useful]: a measured write of the
--      job id (measured_writes.sql) ends at its event and is cut where it would reach back
--      before the stretch or into the previous write of the job's stretch. Two writes logged
--      in one second count once, as the longer of the two.
CREATE OR REPLACE TEMP TABLE goodput_stretches AS
WITH jobs AS (
    SELECT s.alloc_id, a.job_id, CAST(epoch(a.start_time) AS BIGINT) AS t0,
           s.recovery_s, s.useful_s, s.restart_s
    FROM job_splits s JOIN allocations a USING (alloc_id)
), inside AS (
    SELECT j.alloc_id, w.t, w.write_s, j.t0 + j.recovery_s AS low
    FROM jobs j JOIN measured_writes w ON w.job_id = j.job_id
    WHERE w.t > j.t0 + j.recovery_s AND w.t <= j.t0 + j.recovery_s + j.useful_s
), cut AS (
    -- A write starts no earlier than the stretch, nor than the end of the latest earlier
    -- write that took time (each such write counts, bar the shorter of two in one second).
    SELECT alloc_id, t,
           greatest(low, t - write_s,
                    coalesce(max(t) FILTER (WHERE write_s > 0) OVER (
                                 PARTITION BY alloc_id ORDER BY t, write_s DESC
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                             low)) AS begin_s
    FROM inside
)
SELECT alloc_id, 'restart' AS cause, t0 AS start_s, t0 + restart_s AS end_s
FROM jobs WHERE restart_s > 0
UNION ALL
SELECT alloc_id, 'checkpoint_writes', begin_s, t FROM cut WHERE begin_s < t;
