-- in: closing, job_billing   params: none
-- out: (the closing allocations' job_billing rows into closed_billing)
INSERT INTO closed_billing BY NAME
SELECT c.closed_id, b.* EXCLUDE (alloc_id)
FROM closing c JOIN job_billing b USING (alloc_id);
