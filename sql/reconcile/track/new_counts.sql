-- in: tracked_new_names, tracked_new_sources (new_names.sql, new_sources.sql)   params: none
-- out: one row (names, sources): how many of each are new (the sources counted with the
--      registry and progress files: a new one is recorded even when its names are known).
SELECT (SELECT count(*) FROM tracked_new_names), (SELECT count(*) FROM tracked_new_sources);
