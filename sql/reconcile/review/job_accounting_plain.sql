-- in: job_accounting   params: none
-- out: temp view job_accounting_all (as job_accounting_all.sql) for a review that reads no
--      closed jobs' rows: job_accounting alone, without a scan of closed_accounting (on the
--      team ledger every DuckLake scan costs about 0.05 s, and nine queries read this view)
CREATE OR REPLACE TEMP VIEW job_accounting_all AS SELECT * FROM job_accounting;
