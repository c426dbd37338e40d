-- 016: tracked_splits keeps each tracked allocation's split (reconcile/split_cache.py) beside
--   every input it was computed from: the allocation's fields, the count and newest landing of
--   the progress events of its job ids, its chain's high-water step and previous job, the
--   clock tolerance. A review reuses a row only while all of them are unchanged, so a landing
--   for an earlier week (new events, a re-landed registry or sacct line, a job joining a
--   chain) recomputes exactly the splits it changes and those after them in their chains.
CREATE TABLE tracked_splits (
    cluster            VARCHAR NOT NULL,
    job_id             VARCHAR NOT NULL,
    start_s            BIGINT NOT NULL,
    job_id_raw         VARCHAR,
    gpus               BIGINT,
    elapsed_seconds    BIGINT,
    state              VARCHAR,
    experiment_id      VARCHAR,
    work_class         VARCHAR,
    result_valid       BOOLEAN,
    tolerance_s        BIGINT NOT NULL,
    event_count        BIGINT NOT NULL,
    event_source_max   BIGINT,
    high_water_in      BIGINT NOT NULL,
    previous_in        VARCHAR,
    tracked_json       VARCHAR NOT NULL,
    -- job_splits' columns (job_splits.sql), so a review fills them without Python
    useful_s             BIGINT,
    recovery_s           BIGINT,
    lost_s               BIGINT,
    unverified_s         BIGINT,
    flags                VARCHAR[],
    recovery_caused_by   VARCHAR,
    app_start            BIGINT,
    app_end              BIGINT,
    app_elapsed_seconds  BIGINT,
    resumed_from_step    BIGINT,
    high_water_step      BIGINT,
    last_checkpoint_step BIGINT,
    max_step             BIGINT,
    computed_at        TIMESTAMPTZ NOT NULL
);
