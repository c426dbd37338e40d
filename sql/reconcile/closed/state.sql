-- in: closed_state (migration 021)   params: none
-- out: at most one row: the tolerance and registry presence the closed rows were computed
--      with, and the horizon (the latest week start a review closed jobs at)
SELECT tolerance_s, has_registry, horizon FROM closed_state;
