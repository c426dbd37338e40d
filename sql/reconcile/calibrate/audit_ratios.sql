-- in: none   params: none
-- out: an empty temp table audit_ratios, filled by calibration.py with the audit of each run
--      (actual ÷ estimate) and read by calibration_upsert.sql
CREATE OR REPLACE TEMP TABLE audit_ratios (
    work_class      VARCHAR,
    cluster         VARCHAR,
    completed       BOOLEAN,
    runtime_ratio   DOUBLE,
    gpu_hours_ratio DOUBLE,
    mfu             DOUBLE
);
