-- in: sources, tracked_sources (migration 019)   params: none
-- out: temp table tracked_new_sources(source_id): the landed sacct files whose lines no review
--      has matched against the names yet. A rejected file (every line quarantined) is not
--      recorded: landed again (ledger/reuse_source.sql keeps its id), its lines are new then.
CREATE OR REPLACE TEMP TABLE tracked_new_sources AS
SELECT source_id FROM sources WHERE kind = 'sacct' AND status = 'landed'
EXCEPT SELECT source_id FROM tracked_sources;
