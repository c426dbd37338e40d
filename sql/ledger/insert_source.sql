-- in: params $kind, $source_path, $source_sha256, $size_bytes, $landed_at   out: source_id
INSERT INTO sources (kind, source_path, source_sha256, size_bytes, landed_at)
VALUES ($kind, $source_path, $source_sha256, $size_bytes, $landed_at)
RETURNING source_id;
