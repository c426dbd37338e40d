-- in: tracked_new_names (new_names.sql)   params: none
-- out: the new names, for the bounds of the job ids they can link (tracked_lines.py).
SELECT job_id FROM tracked_new_names;
