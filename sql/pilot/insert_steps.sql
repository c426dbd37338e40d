-- in: a Parquet file of pilot_steps rows written by pilot/land.py   params: $path   out: (rows into pilot_steps)
-- Landing through Parquet keeps pyarrow out of the dependencies (DuckDB reads the file itself).
INSERT INTO pilot_steps BY NAME
SELECT * FROM read_parquet($path);
