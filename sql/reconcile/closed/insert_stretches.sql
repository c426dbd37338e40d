-- in: closing, goodput_stretches   params: none
-- out: (the closing allocations' goodput stretches into closed_stretches)
INSERT INTO closed_stretches BY NAME
SELECT c.closed_id, s.* EXCLUDE (alloc_id)
FROM closing c JOIN goodput_stretches s USING (alloc_id);
