-- in: the catalog (duckdb_tables)   params: none
-- out: table_name, estimated row count of every table in the ledger's main schema
SELECT table_name, estimated_size AS row_count
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY table_name;
