-- in: params $source_id, $source_path, $source_line, $raw, $reason, $quarantined_at
INSERT INTO quarantine (source_id, source_path, source_line, raw, reason, quarantined_at)
VALUES ($source_id, $source_path, $source_line, $raw, $reason, $quarantined_at);
