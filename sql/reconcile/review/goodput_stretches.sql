-- in: nothing (filled by reconcile.goodput.goodput_stretch_rows)   params: none
-- out: temp table goodput_stretches: the stretches [start_s, end_s) (epoch s) of one
--      allocation that a badput cause names inside its class: 'restart' (recovery, from the
--      allocation start to the first new step) and 'checkpoint_writes' (blocking writes inside
--      the useful stretch). goodput_by_week.sql takes the rest of each class from job_accounting.
CREATE OR REPLACE TEMP TABLE goodput_stretches (
    alloc_id BIGINT NOT NULL,
    cause    VARCHAR NOT NULL,
    start_s  BIGINT NOT NULL,
    end_s    BIGINT NOT NULL
);
