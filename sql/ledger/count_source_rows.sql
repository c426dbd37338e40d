-- in: params $source_id, $rows_landed
-- out: (updates the source's row counts; a source that landed no row is 'rejected', not landed)
UPDATE sources
SET rows_landed = $rows_landed,
    rows_quarantined = (SELECT count(*) FROM quarantine q WHERE q.source_id = $source_id),
    status = CASE WHEN $rows_landed > 0 THEN 'landed' ELSE 'rejected' END
WHERE source_id = $source_id;
