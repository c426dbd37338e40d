-- 007: weekly reconciliation (issue 7).
-- sacct_rows: one row per sacct line (allocation or step), keyed by (cluster, job_id, step,
--   submit_time); a later landing of the same key replaces the row, so re-landing a week or an
--   overlapping export never double counts. Times are UTC (converted from --cluster-tz).
-- registry / progress_events / manifest: the optional joins of DESIGN.md's accounting side.
-- calibration: actual ÷ estimate per work class and cluster, read by the estimator.
-- measured_failure: the campaign's measured f, fed back to the sensitivity model.
CREATE TABLE sacct_rows (
    cluster          VARCHAR NOT NULL,
    job_id           VARCHAR NOT NULL,   -- allocation id as printed: 123, 9_1, 123+1
    step             VARCHAR,            -- NULL on the allocation line; batch, extern, 0, ...
    job_id_raw       VARCHAR NOT NULL,   -- JobIDRaw without its step (differs for array tasks)
    array_job_id     VARCHAR,
    array_task       VARCHAR,
    het_job_id       VARCHAR,
    het_offset       INTEGER,
    name             VARCHAR,
    account          VARCHAR,
    partition        VARCHAR,
    state            VARCHAR NOT NULL,   -- normalised: CANCELLED, OUT_OF_MEMORY, ...
    state_text       VARCHAR NOT NULL,   -- as printed: "CANCELLED by 1234", "CANCELLED+"
    cancelled_by     VARCHAR,
    exit_status      INTEGER,
    exit_signal      INTEGER,
    elapsed_seconds  BIGINT NOT NULL,
    elapsed_text     VARCHAR,
    submit_time      TIMESTAMPTZ,
    start_time       TIMESTAMPTZ,
    end_time         TIMESTAMPTZ,
    gpus             INTEGER NOT NULL,
    gpu_type         VARCHAR,
    alloc_mem_bytes  BIGINT,
    alloc_cpus       INTEGER,
    nnodes           INTEGER,
    alloc_tres       VARCHAR,
    req_tres         VARCHAR,
    source_id        BIGINT NOT NULL,
    source_path      VARCHAR NOT NULL,
    source_line      BIGINT,
    source_sha256    VARCHAR NOT NULL,
    landed_at        TIMESTAMPTZ NOT NULL
);

CREATE TABLE registry (
    job_id          VARCHAR NOT NULL,
    cluster         VARCHAR,             -- NULL: any cluster
    experiment_id   VARCHAR NOT NULL,
    work_class      VARCHAR NOT NULL,
    code_revision   VARCHAR,
    data_snapshot   VARCHAR,
    result_valid    BOOLEAN,             -- NULL: not judged
    diagnosed_cause VARCHAR,
    cause_addressed BOOLEAN,
    extra_json      JSON,                -- columns beyond the contract, kept as given
    source_id       BIGINT NOT NULL,
    source_path     VARCHAR NOT NULL,
    source_line     BIGINT,
    source_sha256   VARCHAR NOT NULL,
    landed_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE progress_events (
    job_id            VARCHAR NOT NULL,
    event_time        TIMESTAMPTZ NOT NULL,
    event             VARCHAR NOT NULL,  -- start, step, checkpoint, end
    step              BIGINT,
    resumed_from_step BIGINT,
    accepted          BOOLEAN,
    raw_json          JSON NOT NULL,
    source_id         BIGINT NOT NULL,
    source_path       VARCHAR NOT NULL,
    source_line       BIGINT,
    source_sha256     VARCHAR NOT NULL,
    landed_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE manifest (
    artifact_id   VARCHAR NOT NULL,
    experiment_id VARCHAR,
    job_id        VARCHAR,
    step          BIGINT,
    size_bytes    BIGINT NOT NULL,
    created       TIMESTAMPTZ NOT NULL,
    role          VARCHAR NOT NULL,      -- recovery, promoted, final, evaluation
    retain_until  DATE,
    extra_json    JSON,
    source_id     BIGINT NOT NULL,
    source_path   VARCHAR NOT NULL,
    source_line   BIGINT,
    source_sha256 VARCHAR NOT NULL,
    landed_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE calibration (
    work_class     VARCHAR NOT NULL,
    cluster        VARCHAR NOT NULL,
    quantity       VARCHAR NOT NULL,     -- runtime, checkpoint_overhead, retries, evaluation
    runs           INTEGER NOT NULL,
    ratio_mean     DOUBLE NOT NULL,      -- actual ÷ estimate
    ratio_stddev   DOUBLE,               -- sample standard deviation; NULL for one run
    ratio_min      DOUBLE NOT NULL,
    ratio_max      DOUBLE NOT NULL,
    mfu_calibrated DOUBLE,               -- runtime only: mean of estimated MFU ÷ runtime ratio
    computed_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (work_class, cluster, quantity)
);

CREATE TABLE measured_failure (
    campaign               VARCHAR NOT NULL PRIMARY KEY,
    failure_fraction       DOUBLE NOT NULL,   -- (lost + recovery) ÷ useful, main work class
    main_useful_gpu_hours  DOUBLE NOT NULL,
    main_lost_gpu_hours    DOUBLE NOT NULL,
    main_recovery_gpu_hours DOUBLE NOT NULL,
    computed_at            TIMESTAMPTZ NOT NULL
);
