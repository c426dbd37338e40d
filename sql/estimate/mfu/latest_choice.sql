-- in: mfu_choices   params: $campaign_id   out: mfu, mfu_source, run_id (the newest choice)
SELECT mfu, mfu_source, run_id
FROM mfu_choices
WHERE campaign_id = $campaign_id
ORDER BY chosen_at DESC
LIMIT 1;
