-- in: the catalog   params: $table   out: one row if the ledger has table $table
SELECT 1 FROM duckdb_tables() WHERE table_name = $table AND schema_name = 'main';
