-- in: jobs_export (jobs_export.sql, over job_accounting)   params: $path (a file to write)
-- out: (writes the week's jobs to $path as JSON Lines, one object a line, in the report
--      order; each object is the one the inline `jobs` array holds, byte for byte). One row
--      back: the number of jobs written.
COPY (
    SELECT * EXCLUDE (alloc_id) FROM jobs_export ORDER BY alloc_id
) TO $path (FORMAT json);
