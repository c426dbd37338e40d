-- The priced lines of the most recently landed version of a campaign's plan.
-- in: campaign_lines   params: $campaign
-- out: work_class, name, kind, gpu_hours, usd, gb_months, detail, mfu_source, source_path
SELECT work_class, name, kind, gpu_hours, usd, gb_months, detail, mfu_source, source_path
FROM campaign_lines
WHERE campaign = $campaign
  AND source_id = (SELECT max(source_id) FROM campaign_lines WHERE campaign = $campaign)
ORDER BY rowid;
