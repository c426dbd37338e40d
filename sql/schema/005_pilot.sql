-- 005: pilot step logs and the statistics measured from them.
-- pilot_steps: every valid step-log row, with its provenance (rejected rows go to quarantine).
-- pilot_analyses: one summary of a set of step logs under given options; analysis_key is the
--   sha256 of the sorted input hashes and the options, so re-running the same analysis is a no-op.
-- pilot_buckets: that summary's per-shape statistics.
CREATE TABLE pilot_steps (
    run_id             VARCHAR NOT NULL,
    step               BIGINT NOT NULL,
    wall_seconds       DOUBLE NOT NULL,
    tokens             BIGINT,
    samples            BIGINT,
    seq_len            BIGINT NOT NULL,
    batch_size         BIGINT NOT NULL,
    gpus               BIGINT NOT NULL,
    peak_memory_bytes  BIGINT,
    checkpoint_seconds DOUBLE,
    checkpoint_bytes   BIGINT,
    source_id          BIGINT NOT NULL,
    source_path        VARCHAR NOT NULL,
    source_line        BIGINT,
    source_sha256      VARCHAR NOT NULL,
    landed_at          TIMESTAMPTZ NOT NULL
);

CREATE TABLE pilot_analyses (
    analysis_key          VARCHAR PRIMARY KEY,
    analyzed_at           TIMESTAMPTZ NOT NULL,
    source_paths          VARCHAR[] NOT NULL,
    source_sha256s        VARCHAR[] NOT NULL,
    options_json          JSON NOT NULL,
    steps                 BIGINT NOT NULL,
    runs                  BIGINT NOT NULL,
    shape_mix_source      VARCHAR NOT NULL,  -- declared | pilot
    mix_coverage          DOUBLE NOT NULL,
    worst_case_measured   BOOLEAN,           -- NULL when no mix was declared
    tokens_per_gpu_second DOUBLE NOT NULL,
    params                DOUBLE,
    gpu                   VARCHAR,
    precision             VARCHAR NOT NULL,
    mfu                   DOUBLE,
    mfu_source            VARCHAR,           -- 'pilot' when mfu is set
    memory_headroom_bytes BIGINT,
    checkpoint_writes     BIGINT NOT NULL,
    checkpoint_median_seconds DOUBLE,
    checkpoint_max_bytes  BIGINT,
    projected_gpu_hours   DOUBLE,
    warnings              VARCHAR[] NOT NULL,
    summary_json          JSON NOT NULL      -- the full summary, as `trainbudget pilot --json`
);

CREATE TABLE pilot_buckets (
    analysis_key          VARCHAR NOT NULL,
    seq_len               BIGINT NOT NULL,
    batch_size            BIGINT NOT NULL,
    gpus                  BIGINT NOT NULL,
    steps                 BIGINT NOT NULL,
    runs                  BIGINT NOT NULL,
    tokens                BIGINT NOT NULL,
    median_step_seconds   DOUBLE NOT NULL,
    p95_step_seconds      DOUBLE NOT NULL,
    max_step_seconds      DOUBLE NOT NULL,
    tokens_per_step       DOUBLE NOT NULL,
    tokens_per_second     DOUBLE NOT NULL,
    tokens_per_gpu_second DOUBLE NOT NULL,
    peak_memory_bytes     BIGINT,
    memory_headroom_bytes BIGINT,
    mfu                   DOUBLE,
    mix_fraction          DOUBLE NOT NULL,
    worst_case            BOOLEAN NOT NULL
);
