-- in: allocations, registry_links, job_splits (the Python split of jobs with progress)
-- params: $has_registry, $week_start, $week_end (NULL = no week: everything landed)
-- out: temp table job_accounting: one row per allocation with its GPU-seconds split.
--      Jobs without progress are all unverified; without a registry the work class is
--      'unknown', with a registry a job that joins to nothing is 'untracked'.
CREATE OR REPLACE TEMP TABLE job_accounting AS
SELECT a.*,
       l.experiment_id,
       CASE WHEN l.work_class IS NOT NULL THEN l.work_class
            WHEN $has_registry THEN 'untracked' ELSE 'unknown' END AS work_class,
       l.code_revision, l.data_snapshot, l.result_valid, l.diagnosed_cause, l.cause_addressed,
       a.gpus * coalesce(s.useful_s, 0) AS useful_gpu_seconds,
       a.gpus * coalesce(s.recovery_s, 0) AS recovery_gpu_seconds,
       a.gpus * coalesce(s.lost_s, 0) AS lost_gpu_seconds,
       a.gpus * coalesce(s.unverified_s, a.elapsed_seconds) AS unverified_gpu_seconds,
       coalesce(s.flags, []) AS flags,
       s.recovery_caused_by, s.app_start, s.app_end, s.app_elapsed_seconds,
       s.resumed_from_step, s.high_water_step, s.last_checkpoint_step, s.max_step,
       ($week_start IS NULL
        OR (coalesce(a.start_time, a.submit_time) >= $week_start
            AND coalesce(a.start_time, a.submit_time) < $week_end)) AS in_week,
       ($week_end IS NULL OR coalesce(a.start_time, a.submit_time) < $week_end) AS to_date
FROM allocations a
LEFT JOIN registry_links l USING (alloc_id)
LEFT JOIN job_splits s USING (alloc_id);
