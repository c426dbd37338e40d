-- 015: week_allocations keeps, per week reviewed before (its exact [week_start, week_end) in
--   the zone it was reviewed in), the GPU-seconds every allocation ran inside it, so a review
--   of a later week adds up the campaign to date without reading the earlier weeks' jobs again
--   (reconcile/history.py). A landing deletes the rows of the weeks its records touch (and the
--   records they replace); the next review recomputes only those.
CREATE TABLE week_allocations (
    week_start TIMESTAMPTZ NOT NULL,
    week_end TIMESTAMPTZ NOT NULL,
    allocated_gpu_seconds HUGEINT NOT NULL,
    allocation_count BIGINT NOT NULL,
    computed_at TIMESTAMPTZ NOT NULL
);
