-- in: sacct_rows   params: none
-- out: the source id of the newest landing that still has lines in sacct_rows
SELECT max(source_id) FROM sacct_rows;
