-- in: closed_accounting, closed_use   params: none
-- out: temp table closed_keys(cluster, job_id): the closed jobs this review reads as rows, so
--      review_keys.sql leaves them out (keys_none.sql when the review reads every job itself)
CREATE OR REPLACE TEMP TABLE closed_keys AS
SELECT DISTINCT cluster, job_id FROM closed_accounting
WHERE closed_id <= (SELECT upto FROM closed_use);
