-- in: job_accounting, job_splits   params: none
-- out: alloc_id of every allocation in the reviewed week that has application progress
SELECT alloc_id FROM job_accounting WHERE in_week AND alloc_id IN (SELECT alloc_id FROM job_splits);
