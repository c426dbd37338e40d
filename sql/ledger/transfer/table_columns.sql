-- in: the catalog (duckdb_columns, duckdb_tables)   params: none
-- out: table_name, column_name, data_type, column_default of every column of the ledger's
--      base tables in the main schema, in table then column order
SELECT c.table_name, c.column_name, c.data_type, c.column_default
FROM duckdb_columns() c
JOIN duckdb_tables() t USING (database_name, schema_name, table_name)
WHERE c.database_name = current_database() AND c.schema_name = 'main'
ORDER BY c.table_name, c.column_index;
