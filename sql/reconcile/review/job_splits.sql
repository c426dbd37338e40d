-- in: none   params: none
-- out: an empty temp table job_splits, filled by review.py with the Python splits of the jobs
--      that have application progress (seconds; steps; epoch-second app times)
CREATE OR REPLACE TEMP TABLE job_splits (
    alloc_id             BIGINT,
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
    restart_s            BIGINT  -- timelines.restart_seconds (the goodput stretches)
);
