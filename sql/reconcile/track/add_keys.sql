-- in: sacct_rows, tracked_lines, tracked_names, tracked_new_names, tracked_new_sources
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
    -- Every name: those matched before and the new ones (names are never removed), without
    -- reading the registry and the progress events whole.
    SELECT job_id FROM tracked_names
    UNION ALL SELECT job_id FROM tracked_new_names
), fresh AS MATERIALIZED (
    -- (tracked_new_sources holds new registry and progress files too: no line has their ids.)
    SELECT cluster, job_id, job_id_raw FROM sacct_rows
    WHERE source_id IN (SELECT source_id FROM tracked_new_sources)
), by_id AS MATERIALIZED (
    -- One scan for the three links by the job as printed and one for JobIDRaw, not one per
    -- link: the range still holds the week's lines, not yet checkpointed, which no zone
    -- map skips.
    SELECT cluster, job_id FROM sacct_rows WHERE (job_id >= $lo AND job_id < $hi OR $open)
), by_raw AS MATERIALIZED (
    SELECT cluster, job_id, job_id_raw FROM sacct_rows
    WHERE (job_id_raw >= $lo AND job_id_raw < $hi OR $open)
), by_new_names AS (
    SELECT r.cluster, r.job_id FROM by_id r JOIN tracked_new_names n ON r.job_id = n.job_id
    UNION
    SELECT r.cluster, r.job_id FROM by_raw r JOIN tracked_new_names n ON r.job_id_raw = n.job_id
    UNION
    SELECT r.cluster, r.job_id FROM by_id r
    JOIN tracked_new_names n ON split_part(r.job_id, '_', 1) = n.job_id
    WHERE contains(r.job_id, '_')
    UNION
    SELECT r.cluster, r.job_id FROM by_id r
    JOIN tracked_new_names n ON split_part(r.job_id, '+', 1) = n.job_id
    WHERE contains(r.job_id, '+')
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
