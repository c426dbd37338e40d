-- 010: a source's identity is its kind, its content hash and the parse options that change
--   its rows (parse_options: canonical JSON, '' for kinds without such options), so the same
--   bytes landed with another --sacct-delimiter are another source; status says whether any
--   row of it landed ('landed') or every row was rejected ('rejected': its quarantine rows
--   are kept, and landing it again replaces them instead of being a no-op). DuckDB cannot
--   drop the old UNIQUE (kind, source_sha256), so the table is rebuilt with its ids.
CREATE TABLE sources_010 (
    source_id        BIGINT PRIMARY KEY DEFAULT nextval('source_id_seq'),
    kind             VARCHAR NOT NULL,
    source_path      VARCHAR NOT NULL,
    source_sha256    VARCHAR NOT NULL,
    size_bytes       BIGINT NOT NULL,
    rows_landed      BIGINT NOT NULL DEFAULT 0,
    rows_quarantined BIGINT NOT NULL DEFAULT 0,
    landed_at        TIMESTAMPTZ NOT NULL,
    parse_options    VARCHAR NOT NULL DEFAULT '',
    status           VARCHAR NOT NULL DEFAULT 'landed',
    UNIQUE (kind, source_sha256, parse_options)
);
INSERT INTO sources_010 (source_id, kind, source_path, source_sha256, size_bytes, rows_landed,
                         rows_quarantined, landed_at)
SELECT source_id, kind, source_path, source_sha256, size_bytes, rows_landed, rows_quarantined,
       landed_at
FROM sources;
DROP TABLE sources;
ALTER TABLE sources_010 RENAME TO sources;
