-- in: params $kind, $source_sha256   out: source_id, source_path, landed_at of an earlier landing
SELECT source_id, source_path, landed_at
FROM sources
WHERE kind = $kind AND source_sha256 = $source_sha256;
