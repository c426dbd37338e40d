-- in: closed_accounting   params: none
-- out: one row: the largest closed_id so far (0: none)
SELECT coalesce(max(closed_id), 0) FROM closed_accounting;
