-- in: allocations, registry_links, job_splits (the Python split of jobs with progress)
-- params: $has_registry, $week_start, $week_end (NULL = no week: everything landed)
-- out: temp table job_accounting: one row per allocation with its GPU-seconds split.
--      Jobs without progress are all unverified; without a registry the work class is
--      'unknown', with a registry a job that joins to nothing is 'untracked'.
--      A job that ran in the week counts the seconds it ran inside it: allocated and each
--      class are the parts of [Start, Start + ElapsedRaw) inside [week_start, week_end),
--      each class taken on its own stretch of the job's timeline (accounting.py: recovery,
--      then useful, then the lost or unverified tail), so the parts sum to the week's
--      allocation exactly; flag 'split-across-weeks'. to_date_* are the parts before
--      week_end (campaign to date); job_allocated_gpu_seconds the whole allocation and
--      job_*_seconds its classes' wall seconds (accounting_by_week.sql splits those);
--      restart_s the tracked job's restart (job_splits, migration 020; NULL untracked).
--      The same (job id, submit time) under two cluster names is flagged
--      'probable-double-count', with the cluster names in double_count_clusters.
CREATE OR REPLACE TEMP TABLE job_accounting AS
WITH twins AS (
    SELECT job_id, submit_time, list(DISTINCT cluster ORDER BY cluster) AS clusters
    FROM allocations
    -- One cluster name in the ledger (the usual case) cannot repeat a job: no grouping then.
    WHERE submit_time IS NOT NULL
      AND (SELECT count(DISTINCT cluster) FROM allocations) > 1
    GROUP BY job_id, submit_time
    HAVING min(cluster) <> max(cluster)
), timed AS (
    SELECT a.*,
           l.experiment_id, l.work_class AS link_class, l.code_revision, l.data_snapshot,
           l.result_valid, l.diagnosed_cause, l.cause_addressed,
           s.useful_s, s.recovery_s, s.lost_s, s.unverified_s, s.flags AS split_flags,
           s.recovery_caused_by, s.app_start, s.app_end, s.app_elapsed_seconds,
           s.resumed_from_step, s.high_water_step, s.last_checkpoint_step, s.max_step,
           s.restart_s,
           t.clusters AS double_count_clusters,
           CAST(epoch(coalesce(a.start_time, a.submit_time)) AS BIGINT) AS t0,
           coalesce(s.recovery_s, 0) AS r_s,
           coalesce(s.useful_s, 0) AS u_s,
           coalesce(s.lost_s, 0) AS l_s,
           coalesce(s.unverified_s, a.elapsed_seconds) AS v_s,
           CAST(epoch(CAST($week_start AS TIMESTAMPTZ)) AS BIGINT) AS ws,
           CAST(epoch(CAST($week_end AS TIMESTAMPTZ)) AS BIGINT) AS we
    FROM allocations a
    LEFT JOIN registry_links l USING (alloc_id)
    LEFT JOIN job_splits s USING (alloc_id)
    LEFT JOIN twins t ON t.job_id = a.job_id AND t.submit_time = a.submit_time
), parts AS (
    -- Seconds of each stretch [c0, c1) inside [ws, we) (the week) and before we (to date).
    SELECT *,
           CASE WHEN ws IS NULL THEN elapsed_seconds
                ELSE greatest(0, least(t0 + elapsed_seconds, we) - greatest(t0, ws)) END AS w_all,
           CASE WHEN ws IS NULL THEN r_s
                ELSE greatest(0, least(t0 + r_s, we) - greatest(t0, ws)) END AS w_r,
           CASE WHEN ws IS NULL THEN u_s
                ELSE greatest(0, least(t0 + r_s + u_s, we) - greatest(t0 + r_s, ws)) END AS w_u,
           CASE WHEN ws IS NULL THEN l_s
                ELSE greatest(0, least(t0 + r_s + u_s + l_s, we)
                                 - greatest(t0 + r_s + u_s, ws)) END AS w_l,
           CASE WHEN ws IS NULL THEN v_s
                ELSE greatest(0, least(t0 + r_s + u_s + l_s + v_s, we)
                                 - greatest(t0 + r_s + u_s + l_s, ws)) END AS w_v,
           CASE WHEN we IS NULL THEN elapsed_seconds
                ELSE greatest(0, least(elapsed_seconds, we - t0)) END AS d_all,
           CASE WHEN we IS NULL THEN r_s ELSE greatest(0, least(r_s, we - t0)) END AS d_r,
           CASE WHEN we IS NULL THEN u_s
                ELSE greatest(0, least(r_s + u_s, we - t0) - r_s) END AS d_u,
           CASE WHEN we IS NULL THEN l_s
                ELSE greatest(0, least(r_s + u_s + l_s, we - t0) - (r_s + u_s)) END AS d_l,
           coalesce(ws IS NULL OR (t0 < we AND (t0 + elapsed_seconds > ws OR t0 >= ws)), false)
               AS in_week,
           (we IS NULL OR t0 < we) AS to_date
    FROM timed
)
SELECT alloc_id, cluster, job_id, job_id_raw, array_job_id, het_job_id, name, account,
       partition, state, state_text, cancelled_by, exit_status, exit_signal, elapsed_seconds,
       submit_time, start_time, end_time, gpus, gpu_type, source_path, source_line, from_steps,
       time_flags,
       gpus * w_all AS allocated_gpu_seconds,
       experiment_id,
       CASE WHEN link_class IS NOT NULL THEN link_class
            WHEN $has_registry THEN 'untracked' ELSE 'unknown' END AS work_class,
       code_revision, data_snapshot, result_valid, diagnosed_cause, cause_addressed,
       gpus * w_u AS useful_gpu_seconds,
       gpus * w_r AS recovery_gpu_seconds,
       gpus * w_l AS lost_gpu_seconds,
       gpus * w_v AS unverified_gpu_seconds,
       list_concat(coalesce(split_flags, []), coalesce(time_flags, []),
                   CASE WHEN double_count_clusters IS NOT NULL
                        THEN ['probable-double-count'] ELSE [] END,
                   CASE WHEN ws IS NOT NULL AND in_week
                             AND (t0 < ws OR t0 + elapsed_seconds > we)
                        THEN ['split-across-weeks'] ELSE [] END) AS flags,
       recovery_caused_by, app_start, app_end, app_elapsed_seconds,
       resumed_from_step, high_water_step, last_checkpoint_step, max_step, restart_s,
       in_week, to_date,
       allocated_gpu_seconds AS job_allocated_gpu_seconds,
       w_all AS week_elapsed_seconds,
       gpus * d_all AS to_date_allocated_gpu_seconds,
       gpus * d_u AS to_date_useful_gpu_seconds,
       gpus * d_r AS to_date_recovery_gpu_seconds,
       gpus * d_l AS to_date_lost_gpu_seconds,
       double_count_clusters,
       r_s AS job_recovery_seconds, u_s AS job_useful_seconds, l_s AS job_lost_seconds,
       v_s AS job_unverified_seconds
FROM parts;
