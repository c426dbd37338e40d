-- in: params $source_id (Ledger.next_id('source_id_seq')), $kind, $source_path, $source_sha256,
--     $size_bytes, $landed_at, $parse_options
-- out: (the source's row)
INSERT INTO sources (source_id, kind, source_path, source_sha256, size_bytes, landed_at,
                     parse_options)
VALUES ($source_id, $kind, $source_path, $source_sha256, $size_bytes, $landed_at,
        $parse_options);
