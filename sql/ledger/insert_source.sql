-- in: params $kind, $source_path, $source_sha256, $size_bytes, $landed_at, $parse_options
-- out: source_id
INSERT INTO sources (kind, source_path, source_sha256, size_bytes, landed_at, parse_options)
VALUES ($kind, $source_path, $source_sha256, $size_bytes, $landed_at, $parse_options)
RETURNING source_id;
