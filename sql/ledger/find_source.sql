-- in: params $kind, $source_sha256, $parse_options
-- out: source_id, source_path, landed_at, status of an earlier landing of these bytes with
--      these options (status 'landed', or 'rejected' when every row was quarantined)
SELECT source_id, source_path, landed_at, status
FROM sources
WHERE kind = $kind AND source_sha256 = $source_sha256 AND parse_options = $parse_options;
