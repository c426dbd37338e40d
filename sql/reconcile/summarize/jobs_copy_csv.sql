-- in: jobs_export (jobs_export.sql, over job_accounting)   params: $path (a file to write)
-- out: (writes the week's jobs to $path as CSV with a header, the inline array's keys as its
--      columns, in the report order). The *_gpu_hours are written as the DECIMAL(38, 12)
--      text, so they stay exact; flags are joined with spaces (none: an empty quoted field),
--      as in the weekly report's jobs.csv; NULL is an empty unquoted field. One row back: the
--      number of jobs written.
COPY (
    SELECT * EXCLUDE (alloc_id) REPLACE (array_to_string(flags, ' ') AS flags)
    FROM jobs_export ORDER BY alloc_id
) TO $path (FORMAT csv, HEADER true);
