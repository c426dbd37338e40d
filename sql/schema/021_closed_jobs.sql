-- 021: the campaign to date's closed tracked jobs, kept per job (reconcile/closed_jobs.py), so
--   a weekly review stops re-reading them. A tracked job is closed by the review of a week it
--   ended before (every line's start + Elapsed at or before the week's start): from then on
--   its rows in job_accounting, job_billing and goodput_stretches no longer depend on the week
--   reviewed, so the review keeps them here and the next reviews read them instead of its
--   lines. In each chain (timelines.py) only a prefix in start order is closed, so the next
--   review's walk begins from the last closed job's state (walk_high_water, job_id).
--   What landed since (sources and estimates not yet in closed_seen) removes every closed job
--   that started at or after the earliest allocation it can change, and every one after it.
CREATE TABLE closed_accounting (
    closed_id                      BIGINT NOT NULL,  -- minus the alloc_id the review reads
    t0                             BIGINT NOT NULL,  -- start (else submit), epoch seconds
    chain                          VARCHAR,          -- its walk's chain (NULL: not split)
    chain_pos                      BIGINT,           -- its place in that chain's walk
    walk_high_water                BIGINT,           -- the chain's high-water step after it
    tracked_json                   VARCHAR,          -- its split (split_cache._encode)
    cluster                        VARCHAR,
    job_id                         VARCHAR,
    job_id_raw                     VARCHAR,
    array_job_id                   VARCHAR,
    het_job_id                     VARCHAR,
    name                           VARCHAR,
    account                        VARCHAR,
    partition                      VARCHAR,
    state                          VARCHAR,
    state_text                     VARCHAR,
    cancelled_by                   VARCHAR,
    exit_status                    INTEGER,
    exit_signal                    INTEGER,
    elapsed_seconds                BIGINT,
    submit_time                    TIMESTAMPTZ,
    start_time                     TIMESTAMPTZ,
    end_time                       TIMESTAMPTZ,
    gpus                           INTEGER,
    gpu_type                       VARCHAR,
    source_path                    VARCHAR,
    source_line                    BIGINT,
    from_steps                     BOOLEAN,
    time_flags                     VARCHAR[],
    allocated_gpu_seconds          BIGINT,
    experiment_id                  VARCHAR,
    work_class                     VARCHAR,
    code_revision                  VARCHAR,
    data_snapshot                  VARCHAR,
    result_valid                   BOOLEAN,
    diagnosed_cause                VARCHAR,
    cause_addressed                BOOLEAN,
    useful_gpu_seconds             BIGINT,
    recovery_gpu_seconds           BIGINT,
    lost_gpu_seconds               BIGINT,
    unverified_gpu_seconds         BIGINT,
    flags                          VARCHAR[],
    recovery_caused_by             VARCHAR,
    app_start                      BIGINT,
    app_end                        BIGINT,
    app_elapsed_seconds            BIGINT,
    resumed_from_step              BIGINT,
    high_water_step                BIGINT,
    last_checkpoint_step           BIGINT,
    max_step                       BIGINT,
    restart_s                      BIGINT,
    in_week                        BOOLEAN,
    to_date                        BOOLEAN,
    job_allocated_gpu_seconds      BIGINT,
    week_elapsed_seconds           BIGINT,
    to_date_allocated_gpu_seconds  BIGINT,
    to_date_useful_gpu_seconds     BIGINT,
    to_date_recovery_gpu_seconds   BIGINT,
    to_date_lost_gpu_seconds       BIGINT,
    double_count_clusters          VARCHAR[],
    job_recovery_seconds           BIGINT,
    job_useful_seconds             BIGINT,
    job_lost_seconds               BIGINT,
    job_unverified_seconds         BIGINT,
    computed_at                    TIMESTAMPTZ NOT NULL
);
CREATE TABLE closed_billing (
    closed_id                  BIGINT NOT NULL,
    cluster                    VARCHAR,
    job_id                     VARCHAR,
    partition                  VARCHAR,
    work_class                 VARCHAR,
    gpus                       INTEGER,
    alloc_cpus                 INTEGER,
    alloc_mem_bytes            BIGINT,
    nnodes                     INTEGER,
    billing                    BIGINT,
    in_week                    BOOLEAN,
    to_date                    BOOLEAN,
    t0                         BIGINT,
    elapsed_seconds            BIGINT,
    allocated_billing_seconds  BIGINT,
    to_date_billing_seconds    BIGINT,
    job_billing_seconds        BIGINT
);
CREATE TABLE closed_stretches (
    closed_id  BIGINT NOT NULL,
    cause      VARCHAR,
    start_s    BIGINT,
    end_s      BIGINT
);
-- The landings the closed jobs reflect: a source id (sacct, registry, progress) or an
-- estimate id, one per row.
CREATE TABLE closed_seen (
    source_id    BIGINT,
    estimate_id  BIGINT
);
-- What the closed rows were computed with; a review with other values empties them. horizon:
-- the latest week start a review closed jobs at (a review of an earlier week reads them all).
CREATE TABLE closed_state (
    tolerance_s   BIGINT NOT NULL,
    has_registry  BOOLEAN NOT NULL,
    horizon       TIMESTAMPTZ NOT NULL
);
