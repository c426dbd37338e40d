-- in: job_accounting_all, goodput_stretches_all (reconcile/relations.py)   params: none
-- out: week (ISO, UTC), jobs, queue_wait_seconds, queue_wait_gpu_seconds and the GPU-seconds
--      allocated / useful / recovery / lost / unverified / restart / checkpoint_writes /
--      invalid_result of the main run in that week, one row per week in order. The main run:
--      main-class jobs and the retry-class jobs of an experiment that has a main-class job.
--      Each stretch counts in each week by its seconds there (as accounting_by_week.sql), so
--      the weeks sum to the whole allocation. Jobs started and their queue wait (Submit →
--      Start) count in the week they started (a job cancelled while pending in none); queue
--      wait is beside the allocation, not part of it.
WITH main_experiments AS (
    SELECT DISTINCT experiment_id FROM job_accounting_all
    WHERE work_class = 'main' AND experiment_id IS NOT NULL
), jobs AS (
    SELECT alloc_id, gpus, elapsed_seconds AS e,
           CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) AS t0,
           job_recovery_seconds AS r, job_useful_seconds AS u, job_lost_seconds AS l,
           job_unverified_seconds AS v,
           list_contains(flags, 'result-invalid') AS invalid,
           start_time IS NOT NULL AS ran,
           CASE WHEN start_time IS NOT NULL AND submit_time IS NOT NULL
                THEN greatest(0, CAST(epoch(start_time) - epoch(submit_time) AS BIGINT))
           END AS wait_s
    FROM job_accounting_all
    WHERE work_class = 'main'
       OR (work_class = 'retry' AND experiment_id IN (SELECT experiment_id FROM main_experiments))
), stretches AS (
    SELECT alloc_id, gpus, 'allocated' AS part, t0 AS c0, t0 + e AS c1 FROM jobs
    UNION ALL SELECT alloc_id, gpus, 'recovery', t0, t0 + r FROM jobs
    UNION ALL SELECT alloc_id, gpus, 'useful', t0 + r, t0 + r + u FROM jobs
    UNION ALL SELECT alloc_id, gpus, CASE WHEN invalid THEN 'invalid_result' ELSE 'lost' END,
                     t0 + r + u, t0 + r + u + l FROM jobs
    UNION ALL SELECT alloc_id, gpus, 'unverified', t0 + r + u + l, t0 + r + u + l + v FROM jobs
    UNION ALL SELECT s.alloc_id, j.gpus, s.cause, s.start_s, s.end_s
              FROM goodput_stretches_all s JOIN jobs j USING (alloc_id)
), weeks AS (
    -- Monday 00:00 UTC of the first and last week a stretch touches (1970-01-05 was a Monday).
    SELECT *, (c0 - 345600) // 604800 * 604800 + 345600 AS w0,
              (greatest(c1 - 1, c0) - 345600) // 604800 * 604800 + 345600 AS w1
    FROM stretches
), spans AS (
    SELECT part, gpus, c0, c1, unnest(range(w0, w1 + 1, 604800)) AS ws FROM weeks
), parts AS (
    SELECT ws, part, sum(gpus * greatest(0, least(c1, ws + 604800) - greatest(c0, ws))) AS gs
    FROM spans GROUP BY ALL
), started AS (
    SELECT (t0 - 345600) // 604800 * 604800 + 345600 AS ws, count(*) AS jobs,
           sum(wait_s) AS queue_wait_seconds, sum(wait_s * gpus) AS queue_wait_gpu_seconds
    FROM jobs WHERE ran GROUP BY ALL
), week_list AS (
    SELECT ws FROM parts WHERE part = 'allocated' AND gs > 0 UNION SELECT ws FROM started
)
SELECT strftime(to_timestamp(w.ws), '%G-W%V') AS week,
       coalesce(st.jobs, 0) AS jobs_started,
       coalesce(st.queue_wait_seconds, 0) AS queue_wait_seconds,
       coalesce(st.queue_wait_gpu_seconds, 0) AS queue_wait_gpu_seconds,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'allocated'), 0) AS allocated,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'useful'), 0) AS useful,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'recovery'), 0) AS recovery,
       coalesce(sum(p.gs) FILTER (WHERE p.part IN ('lost', 'invalid_result')), 0) AS lost,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'unverified'), 0) AS unverified,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'restart'), 0) AS restart,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'checkpoint_writes'), 0) AS checkpoint_writes,
       coalesce(sum(p.gs) FILTER (WHERE p.part = 'invalid_result'), 0) AS invalid_result
FROM week_list w
LEFT JOIN parts p USING (ws)
LEFT JOIN started st USING (ws)
GROUP BY w.ws, st.jobs, st.queue_wait_seconds, st.queue_wait_gpu_seconds
ORDER BY w.ws;
