-- in: nothing   params: none
-- out: temp table closing(alloc_id, closed_id, chain, chain_pos, walk_high_water), empty:
--      reconcile/closed_jobs.py fills it with the allocations this review closes
CREATE OR REPLACE TEMP TABLE closing (
    alloc_id BIGINT, closed_id BIGINT, chain VARCHAR, chain_pos BIGINT, walk_high_water BIGINT
);
