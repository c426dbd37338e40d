-- in: sacct_rows   params: none
-- out: temp view review_rows (sacct_rows' columns) of a review of everything landed (no week,
--      or weeks that hold every landed line): every line, with no join.
CREATE OR REPLACE TEMP VIEW review_rows AS
SELECT * FROM sacct_rows;
