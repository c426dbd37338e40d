-- in: sacct_replaced   params: none
-- out: how many earlier rows this landing replaces (land.py deletes them only when there are
--      some: with none, sacct_delete_replaced.sql would still probe the whole submit span)
SELECT count(*) FROM sacct_replaced;
