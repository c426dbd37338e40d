-- in: _job_splits (registered frame of the Python splits of jobs with progress)   params: none
-- out: temp table job_splits
CREATE OR REPLACE TEMP TABLE job_splits AS SELECT * FROM _job_splits;
