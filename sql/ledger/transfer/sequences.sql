-- in: the catalog (duckdb_sequences)   params: none
-- out: sequence_name, last_value (the last id handed out, null when none yet) of every
--      sequence in the ledger's main schema
SELECT sequence_name, last_value
FROM duckdb_sequences()
WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY sequence_name;
