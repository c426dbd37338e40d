-- in: goodput_stretches, closed_stretches (migration 021), closed_use   params: none
-- out: temp view goodput_stretches_all: goodput_stretches' rows and the closed tracked jobs'
--      (alloc_id minus their closed_id, as job_accounting_all.sql), for goodput_by_week.sql.
CREATE OR REPLACE TEMP VIEW goodput_stretches_all AS
SELECT * FROM goodput_stretches
UNION ALL BY NAME
SELECT -closed_id AS alloc_id, * EXCLUDE (closed_id)
FROM closed_stretches
WHERE closed_id <= (SELECT upto FROM closed_use);
