-- 013: measured_reliability (issue 16, Deliver 7): what each weekly review measured of a
--   campaign's main run, campaign to date at that week's end, so the next forecast
--   (`mtbf: ledger`, restart minutes, ETTR) and the audit of the estimate read it back.
--   GPU-seconds are exact integers; ettr = productive ÷ allocated (reconcile/goodput.py).
--   week is the reviewed ISO week, or 'all' for a review of everything landed.
CREATE TABLE measured_reliability (
    campaign                 VARCHAR NOT NULL,
    week                     VARCHAR NOT NULL,
    cluster                  VARCHAR,          -- where the main run used most GPU-seconds
    main_gpus                INTEGER,          -- the main run's most used GPU count
    allocated_gpu_seconds    BIGINT NOT NULL,
    productive_gpu_seconds   BIGINT NOT NULL,
    restart_gpu_seconds      BIGINT NOT NULL,
    recomputation_gpu_seconds BIGINT NOT NULL,
    lost_progress_gpu_seconds BIGINT NOT NULL,
    checkpoint_write_gpu_seconds BIGINT NOT NULL,
    ettr                     DOUBLE,           -- NULL when nothing was allocated
    interruptions            INTEGER NOT NULL, -- of the main-run jobs
    job_seconds_at_risk      BIGINT NOT NULL,  -- their wall seconds
    restarts                 INTEGER NOT NULL, -- resumed main-run jobs measured
    restart_median_seconds   DOUBLE,
    computed_at              TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (campaign, week)
);
