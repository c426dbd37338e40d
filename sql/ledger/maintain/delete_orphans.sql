-- in: the team ledger   params: $older_than (TIMESTAMPTZ)
-- out: path of every file in the data folder the catalog does not know (a killed writer's
--      Parquet) last changed before $older_than, now deleted
CALL ducklake_delete_orphaned_files('ledger', older_than => CAST($older_than AS TIMESTAMPTZ));
