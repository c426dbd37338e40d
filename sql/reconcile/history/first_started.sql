-- in: sacct_rows   params: none
-- out: the earliest start time of any landed line (NULL when none has one): a plain column's
--      minimum, which DuckDB reads cheaply (first_start.sql takes it as a constant)
SELECT min(start_time) FROM sacct_rows;
