-- in: manifest, registry   params: $retention_months (the plan's; NULL without a plan),
--     $as_of (end of the reviewed week)
-- out: one row per role: artifacts, size_bytes, gb_months (GB = 10^9 bytes; a month is
--      365.25/12 days; from created to retain_until, else to as_of), artifacts kept longer
--      than the plan's retention, artifacts with no retention date, artifacts of no known
--      experiment. The newest landing of an artifact id wins.
WITH latest AS (
    SELECT *
    FROM manifest
    QUALIFY row_number() OVER (PARTITION BY artifact_id ORDER BY landed_at DESC) = 1
), sized AS (
    SELECT *,
           date_diff('second', created,
                     coalesce(CAST(retain_until AS TIMESTAMPTZ), $as_of)) / 86400.0
               / (365.25 / 12) AS months_kept
    FROM latest
)
SELECT role,
       count(*) AS artifacts,
       sum(size_bytes) AS size_bytes,
       sum(size_bytes / 1e9 * greatest(months_kept, 0)) AS gb_months,
       count(*) FILTER (WHERE $retention_months IS NOT NULL AND retain_until IS NOT NULL
                        AND months_kept > $retention_months) AS over_retention,
       count(*) FILTER (WHERE retain_until IS NULL) AS no_retention_date,
       count(*) FILTER (WHERE experiment_id IS NULL
                        OR experiment_id NOT IN (SELECT experiment_id FROM registry))
           AS untracked
FROM sized
GROUP BY role
ORDER BY role;
