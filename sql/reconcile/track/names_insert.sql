-- in: tracked_new_names   params: none
-- out: (records the new names as matched, so the next review matches only what lands after)
INSERT INTO tracked_names SELECT job_id FROM tracked_new_names;
