-- in: the connection   params: $limit (e.g. '1200MB')
-- out: (caps DuckDB's buffer memory for this connection; temporary tables beyond it spill to
--      the ledger's .tmp folder, so a million-line week stays within the RSS budget)
SET memory_limit = $limit;
