-- in: plans   params: $campaign   out: plan_json, raw_yaml, source_path, landed_at of the newest plan
SELECT plan_json, raw_yaml, source_path, landed_at
FROM plans
WHERE campaign = $campaign
ORDER BY landed_at DESC
LIMIT 1;
