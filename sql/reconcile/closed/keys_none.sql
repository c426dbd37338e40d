-- in: nothing   params: none
-- out: temp table closed_keys(cluster, job_id), empty (as keys.sql) for a review that reads no
--      closed jobs' rows, without a scan of closed_accounting
CREATE OR REPLACE TEMP TABLE closed_keys (cluster VARCHAR, job_id VARCHAR);
