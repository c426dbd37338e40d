-- in: sacct_rows, tracked_lines, tracked_new_names, tracked_new_sources, registry,
--     progress_events, run_estimates
-- params: $lo, $hi: every job id (and JobIDRaw) a new name can link lies in [lo, hi) (the
--         smallest name, and the largest name's prefix successor: an array task 12_3 of the
--         name 12 sorts after 12 and before 13); a constant range DuckDB's zone maps skip row
--         groups with, since new names are mostly new jobs. lo = hi = '' when there are none;
--         $open: true when a name has no prefix successor (all U+10FFFF), then no bound.
-- out: temp table tracked_add_keys(cluster, job_id): the jobs whose lines tracked_lines must
--      hold now and may not yet: those the new names link, wherever their lines are, and those
--      of the newly landed lines that a name links or tracked_lines already holds. The links
--      are review_keys.sql's: the job as printed, its JobIDRaw, its array or het job.
CREATE OR REPLACE TEMP TABLE tracked_add_keys AS
WITH named AS (
    SELECT job_id FROM registry
    UNION SELECT job_id FROM progress_events
    UNION SELECT run_id FROM run_estimates
), fresh AS MATERIALIZED (
    SELECT cluster, job_id, job_id_raw FROM sacct_rows
    WHERE source_id IN (SELECT source_id FROM tracked_new_sources)
), by_new_names AS (
    SELECT r.cluster, r.job_id FROM sacct_rows r JOIN tracked_new_names n ON r.job_id = n.job_id
    WHERE (r.job_id >= $lo AND r.job_id < $hi OR $open)
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r JOIN tracked_new_names n ON r.job_id_raw = n.job_id
    WHERE (r.job_id_raw >= $lo AND r.job_id_raw < $hi OR $open)
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r
    JOIN tracked_new_names n ON split_part(r.job_id, '_', 1) = n.job_id
    WHERE (r.job_id >= $lo AND r.job_id < $hi OR $open) AND contains(r.job_id, '_')
    UNION
    SELECT r.cluster, r.job_id FROM sacct_rows r
    JOIN tracked_new_names n ON split_part(r.job_id, '+', 1) = n.job_id
    WHERE (r.job_id >= $lo AND r.job_id < $hi OR $open) AND contains(r.job_id, '+')
), by_fresh AS (
    SELECT f.cluster, f.job_id FROM fresh f JOIN named n ON f.job_id = n.job_id
    UNION
    SELECT f.cluster, f.job_id FROM fresh f JOIN named n ON f.job_id_raw = n.job_id
    UNION
    SELECT f.cluster, f.job_id FROM fresh f JOIN named n ON split_part(f.job_id, '_', 1) = n.job_id
    WHERE contains(f.job_id, '_')
    UNION
    SELECT f.cluster, f.job_id FROM fresh f JOIN named n ON split_part(f.job_id, '+', 1) = n.job_id
    WHERE contains(f.job_id, '+')
    UNION
    SELECT f.cluster, f.job_id FROM fresh f SEMI JOIN tracked_lines t USING (cluster, job_id)
)
SELECT cluster, job_id FROM by_new_names
UNION
SELECT cluster, job_id FROM by_fresh;
