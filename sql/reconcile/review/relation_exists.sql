-- in: the catalog   params: $relation
-- out: one row while the session holds the temp table $relation (reconcile/relations.py)
SELECT 1 FROM duckdb_tables() WHERE table_name = $relation AND temporary;
