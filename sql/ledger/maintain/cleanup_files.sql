-- in: the team ledger   params: $older_than (TIMESTAMPTZ)
-- out: path of every file scheduled for deletion before $older_than, now deleted
CALL ducklake_cleanup_old_files('ledger', older_than => CAST($older_than AS TIMESTAMPTZ));
