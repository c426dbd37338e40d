-- 006: scaling fits (issue 6).
-- ablation_rows: each row of a landed ablations CSV as written, with provenance; landed once
--   per file content, whatever column options a fit later reads it with.
-- scaling_fits: one row per distinct fit (same file content + same options = same fit_key,
--   landed once): the law, the prediction at the target, the gain and the allocation.
-- scaling_intervals: the bootstrap percentile interval of every quantity of a fit.
-- scaling_fit_points: the (N, D, loss) each fit read from each line, and whether it was used.
CREATE SEQUENCE IF NOT EXISTS scaling_fit_id_seq START 1;

CREATE TABLE ablation_rows (
    raw           VARCHAR NOT NULL,
    source_id     BIGINT NOT NULL,
    source_path   VARCHAR NOT NULL,
    source_line   BIGINT NOT NULL,
    source_sha256 VARCHAR NOT NULL,
    landed_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE scaling_fits (
    fit_id                   BIGINT PRIMARY KEY DEFAULT nextval('scaling_fit_id_seq'),
    fit_key                  VARCHAR NOT NULL UNIQUE,   -- sha256 of file content + options
    source_id                BIGINT NOT NULL,
    source_path              VARCHAR NOT NULL,
    source_sha256            VARCHAR NOT NULL,
    options_json             JSON NOT NULL,             -- columns, drops, target, seed, ...
    points                   INTEGER NOT NULL,
    dropped_points           INTEGER NOT NULL,
    huber_delta              DOUBLE NOT NULL,
    objective                DOUBLE NOT NULL,
    starts                   INTEGER NOT NULL,
    converged_starts         INTEGER NOT NULL,
    e                        DOUBLE NOT NULL,
    a                        DOUBLE NOT NULL,
    b                        DOUBLE NOT NULL,
    alpha                    DOUBLE NOT NULL,
    beta                     DOUBLE NOT NULL,
    target_params            DOUBLE NOT NULL,
    target_tokens            DOUBLE NOT NULL,
    predicted_loss           DOUBLE NOT NULL,
    baseline_loss            DOUBLE,
    gain                     DOUBLE,
    gain_uncertainty         DOUBLE,
    gain_exceeds_uncertainty BOOLEAN,
    budget_flops             DOUBLE NOT NULL,
    params_opt               DOUBLE,
    tokens_opt               DOUBLE,
    bootstrap_resamples      INTEGER NOT NULL,
    bootstrap_failed         INTEGER NOT NULL,
    seed                     BIGINT NOT NULL,
    confidence               DOUBLE NOT NULL,
    payload_json             JSON NOT NULL,             -- the command's full JSON answer
    fitted_at                TIMESTAMPTZ NOT NULL
);

CREATE TABLE scaling_intervals (
    fit_id     BIGINT NOT NULL,
    quantity   VARCHAR NOT NULL,  -- E, A, B, alpha, beta, predicted_loss, gain, params_opt, ...
    value      DOUBLE,
    low        DOUBLE,
    high       DOUBLE,
    confidence DOUBLE NOT NULL
);

CREATE TABLE scaling_fit_points (
    fit_id          BIGINT NOT NULL,
    source_line     BIGINT NOT NULL,
    params          DOUBLE NOT NULL,
    tokens          DOUBLE NOT NULL,
    loss            DOUBLE NOT NULL,
    used            BOOLEAN NOT NULL,
    excluded_reason VARCHAR
);
