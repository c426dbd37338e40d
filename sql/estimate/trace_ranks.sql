-- in: trace_ranks (migration 004)   params: none
-- out: the newest landed trace: every rank row from the folder of the most recently landed
--      trace file, in the same mode (default or HTA-compatible), newest landing per rank.
--      rank, device_name, flops (HUGEINT), wall_ns, hta_compatible, source_id, source_path,
--      source_sha256, landed_at.
WITH newest AS (
    SELECT regexp_replace(source_path, '[^/]*$', '') AS folder, hta_compatible
    FROM trace_ranks
    ORDER BY landed_at DESC, source_id DESC
    LIMIT 1
)
SELECT r.rank, r.device_name, r.flops, r.wall_ns, r.hta_compatible, r.source_id,
       r.source_path, r.source_sha256, r.landed_at
FROM trace_ranks r
JOIN newest n
  ON regexp_replace(r.source_path, '[^/]*$', '') = n.folder
 AND r.hta_compatible = n.hta_compatible
QUALIFY row_number() OVER (PARTITION BY r.rank ORDER BY r.landed_at DESC, r.source_id DESC) = 1
ORDER BY r.rank;
