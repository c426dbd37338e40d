-- in: sources, tracked_sources (migration 019)   params: none
-- out: temp table tracked_new_sources(source_id): the landed sacct files whose lines no review
--      has matched against the names yet.
CREATE OR REPLACE TEMP TABLE tracked_new_sources AS
SELECT source_id FROM sources WHERE kind = 'sacct'
EXCEPT SELECT source_id FROM tracked_sources;
