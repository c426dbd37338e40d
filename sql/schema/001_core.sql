-- 001: the ledger's own bookkeeping.
-- sources: every input file landed, once per (kind, content hash); re-landing is a no-op.
-- quarantine: rows rejected while landing, with the reason, never silently dropped.
CREATE SEQUENCE IF NOT EXISTS source_id_seq START 1;

CREATE TABLE sources (
    source_id        BIGINT PRIMARY KEY DEFAULT nextval('source_id_seq'),
    kind             VARCHAR NOT NULL,      -- plan, pilot_steps, trace, ablations, sacct, ...
    source_path      VARCHAR NOT NULL,
    source_sha256    VARCHAR NOT NULL,
    size_bytes       BIGINT NOT NULL,
    rows_landed      BIGINT NOT NULL DEFAULT 0,
    rows_quarantined BIGINT NOT NULL DEFAULT 0,
    landed_at        TIMESTAMPTZ NOT NULL,
    UNIQUE (kind, source_sha256)
);

CREATE TABLE quarantine (
    source_id      BIGINT NOT NULL,
    source_path    VARCHAR NOT NULL,
    source_line    BIGINT,                  -- 1-based line or record number; NULL if whole file
    raw            VARCHAR,
    reason         VARCHAR NOT NULL,
    quarantined_at TIMESTAMPTZ NOT NULL
);

-- plans: each distinct plan file landed, raw text kept beside its validated form.
CREATE TABLE plans (
    campaign      VARCHAR NOT NULL,
    plan_json     JSON NOT NULL,
    raw_yaml      VARCHAR NOT NULL,
    source_id     BIGINT NOT NULL,
    source_path   VARCHAR NOT NULL,
    source_line   BIGINT,
    source_sha256 VARCHAR NOT NULL,
    landed_at     TIMESTAMPTZ NOT NULL
);
