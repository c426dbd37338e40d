-- in: sacct_rows (just imported)   params: none
-- out: (fills the columns a migration derives from a row's other columns, for rows of an
--      export made before it: sacct_rows.run_end_time, start (else submit) + Elapsed, as
--      migration 018 and sacct_insert.sql compute it; an export that has it is untouched)
UPDATE sacct_rows
SET run_end_time = coalesce(start_time, submit_time) + to_seconds(elapsed_seconds)
WHERE run_end_time IS NULL AND coalesce(start_time, submit_time) IS NOT NULL;
