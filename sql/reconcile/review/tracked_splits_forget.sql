-- in: tracked_splits   params: $clusters, $job_ids, $starts (lists, one entry per allocation)
-- out: (removes the stored splits of those allocations, before their new splits are stored)
DELETE FROM tracked_splits AS c
USING (
    SELECT unnest(CAST($clusters AS VARCHAR[])) AS cluster,
           unnest(CAST($job_ids AS VARCHAR[])) AS job_id,
           unnest(CAST($starts AS BIGINT[])) AS start_s
) AS f
WHERE c.cluster = f.cluster AND c.job_id = f.job_id AND c.start_s = f.start_s;
