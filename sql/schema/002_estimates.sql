-- 002: estimates and campaign lines, kept so estimate can be audited against actual.
-- run_estimates: one row per `trainbudget estimate --run-id` (or a flow's estimate); the
--   numbers are DOUBLE for querying, and inputs/outputs keep the exact values as JSON text.
-- campaign_lines: the priced lines of a campaign plan, with the plan file's provenance.
CREATE SEQUENCE IF NOT EXISTS estimate_id_seq START 1;

CREATE TABLE run_estimates (
    estimate_id            BIGINT PRIMARY KEY DEFAULT nextval('estimate_id_seq'),
    run_id                 VARCHAR NOT NULL,
    campaign               VARCHAR,
    method                 VARCHAR NOT NULL,      -- 6nt, attention, recompute, moe, given
    gpu                    VARCHAR,               -- catalog name, NULL with --gpu-tflops
    gpus                   INTEGER NOT NULL,
    peak_flops_per_second  DOUBLE NOT NULL,
    mfu                    DOUBLE NOT NULL,
    mfu_source             VARCHAR NOT NULL,      -- user, pilot, calibrated, class-default
    price_usd_per_gpu_hour DOUBLE NOT NULL,
    flops                  DOUBLE NOT NULL,
    wall_seconds           DOUBLE NOT NULL,
    gpu_hours              DOUBLE NOT NULL,
    dollar_cost            DOUBLE NOT NULL,
    inputs_json            JSON NOT NULL,
    outputs_json           JSON NOT NULL,
    estimated_at           TIMESTAMPTZ NOT NULL
);

CREATE TABLE campaign_lines (
    campaign      VARCHAR NOT NULL,
    work_class    VARCHAR NOT NULL,              -- pilot, main, retry, evaluation, diagnostic, storage
    name          VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,              -- planned, contingency
    gpu_hours     DECIMAL(38, 6) NOT NULL,
    usd           DECIMAL(38, 6) NOT NULL,
    gb_months     DECIMAL(38, 6),
    detail        VARCHAR NOT NULL,              -- the line's arithmetic, as shown to the user
    mfu_source    VARCHAR,                       -- main line derived from an MFU: its source
    estimated_at  TIMESTAMPTZ NOT NULL,
    source_id     BIGINT NOT NULL,
    source_path   VARCHAR NOT NULL,
    source_line   BIGINT,
    source_sha256 VARCHAR NOT NULL,
    landed_at     TIMESTAMPTZ NOT NULL
);
