-- in: plans   params: none   out: plan_json, source_path of the most recently landed plan
SELECT plan_json, source_path FROM plans ORDER BY landed_at DESC LIMIT 1;
