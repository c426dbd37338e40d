-- in: jobs_export (jobs_export.sql, over job_accounting)   params: $path (a file to write)
-- out: (writes the JSON array of the week's jobs to $path in the report order). DuckDB
--      streams it to the file, so a million-line export never becomes one in-memory value or
--      Python objects; the command copies the file into its JSON output.
COPY (
    SELECT * EXCLUDE (alloc_id) FROM jobs_export ORDER BY alloc_id
) TO $path (FORMAT json, ARRAY true);
