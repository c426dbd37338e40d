-- in: the team ledger (DuckLake catalog `ledger`)   params: none
-- out: schema_name, table_name, rows_flushed: rows small inserts kept inline in the catalog,
--      now written to Parquet
CALL ducklake_flush_inlined_data('ledger');
