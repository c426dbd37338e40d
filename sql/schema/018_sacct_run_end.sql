-- 018: sacct_rows.run_end_time is when the accounting says a line stopped running: its start
--   (else submit) time plus Elapsed, kept at landing (sacct_insert.sql). sacct's own End can
--   be earlier (the landing checks only that End is not before Start) or missing (a job still
--   running when exported), so a scan that wants the lines that ran after a time t cannot
--   skip anything by End; by this plain column it can (`run_end_time > t`, a constant that
--   DuckDB's zone maps skip whole row groups with: reconcile/history/fill_weeks.sql,
--   reconcile/review/review_keys.sql). NULL only when a line has neither Start nor Submit.
ALTER TABLE sacct_rows ADD COLUMN run_end_time TIMESTAMPTZ;

UPDATE sacct_rows
SET run_end_time = coalesce(start_time, submit_time) + to_seconds(elapsed_seconds);
