-- in: closed_state   params: $tolerance_s, $has_registry, $horizon
-- out: (closed_state holds one row: these values)
DELETE FROM closed_state;
INSERT INTO closed_state VALUES ($tolerance_s, $has_registry, $horizon);
