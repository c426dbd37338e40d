-- in: allocations, registry   params: none
-- out: temp table registry_links(alloc_id, experiment_id, work_class, ...): the registry row
--      of each allocation. A registry job_id may name the job as printed (9_1, 123+1), its
--      JobIDRaw, or the whole array / het job (9, 123); the most specific match wins, and a
--      row for the job's cluster beats a row without a cluster. A re-landed registry row
--      replaces the earlier one.
CREATE OR REPLACE TEMP TABLE registry_links AS
WITH bounds AS (
    SELECT least(min(job_id), min(job_id_raw), min(array_job_id), min(het_job_id)) AS lo,
           greatest(max(job_id), max(job_id_raw), max(array_job_id), max(het_job_id)) AS hi
    FROM allocations
), reg AS (
    -- Only the rows from the least to the greatest id the allocations go by (VARCHARs in
    -- byte order, as min and max compare them): the window numbers each job id's rows apart,
    -- so leaving out other ids changes no number, and it no longer ranks the whole registry,
    -- which grows with the campaign (0.031 CPU-s over 53,298 rows the week after 26 weeks of
    -- 200k lines).
    SELECT registry.*
    FROM registry, bounds
    WHERE registry.job_id BETWEEN bounds.lo AND bounds.hi
    QUALIFY row_number() OVER (PARTITION BY job_id, cluster
                               ORDER BY landed_at DESC, source_line DESC) = 1
), candidates AS (
    SELECT a.alloc_id, a.cluster AS job_cluster, r.*, 1 AS priority
    FROM allocations a JOIN reg r ON r.job_id = a.job_id
    UNION ALL
    SELECT a.alloc_id, a.cluster, r.*, 2 FROM allocations a JOIN reg r ON r.job_id = a.job_id_raw
    UNION ALL
    SELECT a.alloc_id, a.cluster, r.*, 3 FROM allocations a JOIN reg r ON r.job_id = a.array_job_id
    UNION ALL
    SELECT a.alloc_id, a.cluster, r.*, 4 FROM allocations a JOIN reg r ON r.job_id = a.het_job_id
)
SELECT alloc_id, experiment_id, work_class, code_revision, data_snapshot, result_valid,
       diagnosed_cause, cause_addressed
FROM candidates
WHERE cluster IS NULL OR cluster = job_cluster
QUALIFY row_number() OVER (PARTITION BY alloc_id
                           ORDER BY priority, cluster IS NULL, landed_at DESC) = 1;
