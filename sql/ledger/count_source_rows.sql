-- in: params $source_id, $rows_landed   out: (updates the source's row counts)
UPDATE sources
SET rows_landed = $rows_landed,
    rows_quarantined = (SELECT count(*) FROM quarantine q WHERE q.source_id = $source_id)
WHERE source_id = $source_id;
