-- in: jobs_export (jobs_export.sql, over job_accounting)   params: $path (a file to write)
-- out: (writes the week's jobs to $path as Parquet, one row a job in the report order, the
--      inline array's keys as its columns). Exact as the JSON: the *_gpu_hours are Parquet
--      DECIMAL(38, 12) columns, the *_gpu_seconds INT64, the times the same ISO-8601 UTC
--      strings, flags a list of strings. One row back: the number of jobs written.
COPY (
    SELECT * EXCLUDE (alloc_id) FROM jobs_export ORDER BY alloc_id
) TO $path (FORMAT parquet);
