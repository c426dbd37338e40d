-- in: job_billing, closed_billing (migration 021), closed_use   params: none
-- out: temp view job_billing_all: job_billing's rows and the closed tracked jobs' (alloc_id
--      minus their closed_id, as job_accounting_all.sql), for the campaign-to-date sums.
CREATE OR REPLACE TEMP VIEW job_billing_all AS
SELECT * FROM job_billing
UNION ALL BY NAME
SELECT -closed_id AS alloc_id, * EXCLUDE (closed_id)
FROM closed_billing
WHERE closed_id <= (SELECT upto FROM closed_use);
