-- in: sacct_rejected   params: none
-- out: how many lines of the landing in progress did not land (sacct_rejected's rows)
SELECT count(*) FROM sacct_rejected;
