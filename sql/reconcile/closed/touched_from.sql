-- in: closed_new, sacct_rows, tracked_lines (brought up to date: reconcile/tracked_lines.py),
--     registry, progress_events, run_estimates, closed_accounting
-- params: none
-- out: one row: how many new landings, and the earliest start (else submit), epoch seconds,
--      of an allocation they can change (NULL: none). A new sacct line of a named job changes
--      its own job (copied into tracked_lines, which holds every line of a named job), and any
--      new line changes the closed jobs with its job id or JobIDRaw (a requeue, a step, a twin
--      on another cluster, a line that replaced theirs);
--      a new registry row, progress event or estimate changes the jobs its name links, as
--      review_keys.sql links them (the job as printed, its JobIDRaw, its array or het job).
--      The jobs of a chain after a changed one may change too; they start later, and
--      closed_jobs.py forgets every closed job from the earliest start on.
WITH new_lines AS (
    SELECT job_id, job_id_raw, CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) AS t0
    FROM tracked_lines
    WHERE source_id IN (SELECT source_id FROM closed_new WHERE kind = 'sacct')
), landed AS (
    -- Every new line, named or not: one that replaced a closed job's line may link no name any
    -- more (a re-export without JobIDRaw), and its copy is gone from tracked_lines.
    SELECT job_id, job_id_raw FROM sacct_rows
    WHERE source_id IN (SELECT source_id FROM closed_new WHERE kind = 'sacct')
), ids AS (
    -- Only tested with IN: duplicates change nothing, and not removing them saves a grouping.
    SELECT job_id AS id FROM landed UNION ALL SELECT job_id_raw FROM landed
), names AS (
    SELECT job_id FROM registry
    WHERE source_id IN (SELECT source_id FROM closed_new WHERE kind = 'registry')
    UNION SELECT job_id FROM progress_events
    WHERE source_id IN (SELECT source_id FROM closed_new WHERE kind = 'progress')
    UNION SELECT run_id FROM run_estimates
    WHERE estimate_id IN (SELECT estimate_id FROM closed_new WHERE kind = 'estimate')
), named AS (
    SELECT r.start_time, r.submit_time FROM tracked_lines r JOIN names n ON r.job_id = n.job_id
    UNION ALL
    SELECT r.start_time, r.submit_time FROM tracked_lines r
    JOIN names n ON r.job_id_raw = n.job_id
    UNION ALL
    SELECT r.start_time, r.submit_time FROM tracked_lines r
    JOIN names n ON split_part(r.job_id, '_', 1) = n.job_id
    WHERE contains(r.job_id, '_')
    UNION ALL
    SELECT r.start_time, r.submit_time FROM tracked_lines r
    JOIN names n ON split_part(r.job_id, '+', 1) = n.job_id
    WHERE contains(r.job_id, '+')
), starts AS (
    SELECT t0 FROM new_lines
    UNION ALL
    SELECT c.t0 FROM closed_accounting c WHERE c.job_id IN (SELECT id FROM ids)
    UNION ALL
    SELECT c.t0 FROM closed_accounting c WHERE c.job_id_raw IN (SELECT id FROM ids)
    UNION ALL
    SELECT CAST(epoch(coalesce(start_time, submit_time)) AS BIGINT) FROM named
)
SELECT (SELECT count(*) FROM closed_new) AS landings, min(t0) AS touched_from FROM starts;
