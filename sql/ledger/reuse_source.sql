-- in: params $source_id, $source_path, $size_bytes, $landed_at
-- out: (a source whose every row was rejected is landed again under its id: its path and
--      time become this attempt's; its old quarantine rows go first, ledger/drop_quarantine)
UPDATE sources
SET source_path = $source_path, size_bytes = $size_bytes, landed_at = $landed_at,
    rows_landed = 0, rows_quarantined = 0, status = 'landed'
WHERE source_id = $source_id;
