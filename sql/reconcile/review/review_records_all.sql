-- in: sacct_records (migration 012's view)   params: none
-- out: temp view review_records of a review of everything landed: every line of sacct_records
--      (no join; review_records.sql is the one for some weeks).
CREATE OR REPLACE TEMP VIEW review_records AS
SELECT * FROM sacct_records;
