-- in: manifest   params: none   out: every landed artifact (newest landing of each id),
--      for Review.artifacts and the retention gate
SELECT artifact_id, coalesce(experiment_id, '') AS experiment_id, role, size_bytes, created,
       step, retain_until
FROM manifest
QUALIFY row_number() OVER (PARTITION BY artifact_id ORDER BY landed_at DESC) = 1
ORDER BY artifact_id;
