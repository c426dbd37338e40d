-- in: the team ledger   params: none
-- out: schema_name, table_name, files_processed, files_created: small adjacent Parquet files
--      merged (the old ones are scheduled for deletion, not deleted)
CALL ducklake_merge_adjacent_files('ledger');
