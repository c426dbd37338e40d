-- in: the team ledger   params: $older_than (TIMESTAMPTZ)
-- out: snapshot_id, snapshot_time, ...: the snapshots expired (time travel before
--      $older_than ends; their no longer needed files are scheduled for deletion)
CALL ducklake_expire_snapshots('ledger', older_than => CAST($older_than AS TIMESTAMPTZ));
