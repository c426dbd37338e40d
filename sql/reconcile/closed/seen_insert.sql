-- in: closed_new   params: none
-- out: (the new landings recorded in closed_seen: the closed rows now reflect them)
INSERT INTO closed_seen SELECT source_id, estimate_id FROM closed_new;
