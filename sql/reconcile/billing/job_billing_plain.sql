-- in: job_billing   params: none
-- out: temp view job_billing_all (as job_billing_all.sql) for a review that reads no closed
--      jobs' rows: job_billing alone, without a scan of closed_billing
CREATE OR REPLACE TEMP VIEW job_billing_all AS SELECT * FROM job_billing;
