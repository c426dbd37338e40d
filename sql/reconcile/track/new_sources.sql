-- in: sources, tracked_sources (migration 019)   params: none
-- out: temp table tracked_new_sources(source_id): the landed sacct files whose lines no review
--      has matched against the names yet, and the landed registry and progress files whose
--      names no review has matched against the lines yet (new_names.sql reads only these: a
--      landed file gains no rows later, so the others' names are in tracked_names). Ledgers
--      that recorded only sacct files here read every registry and progress file once more.
--      A rejected file (every line or row quarantined) is not recorded: landed again
--      (ledger/reuse_source.sql keeps its id), its lines or names are new then. Migration
--      019 describes tracked_sources as sacct files only; since 2026-12-06 it holds these.
CREATE OR REPLACE TEMP TABLE tracked_new_sources AS
SELECT source_id FROM sources
WHERE kind IN ('sacct', 'registry', 'progress') AND status = 'landed'
EXCEPT SELECT source_id FROM tracked_sources;
