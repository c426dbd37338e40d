-- in: params $source_id   out: (removes the quarantine rows of an earlier, wholly rejected
--     attempt at the source, before it is landed again)
DELETE FROM quarantine WHERE source_id = $source_id;
