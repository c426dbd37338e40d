-- in: tracked_new_sources   params: none
-- out: (records the new sacct, registry and progress sources as matched)
INSERT INTO tracked_sources SELECT source_id FROM tracked_new_sources;
