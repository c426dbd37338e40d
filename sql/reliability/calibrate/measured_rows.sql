-- in: measured_reliability   params: $campaign
-- out: the campaign's stored measurements, newest reviewed week first.
SELECT * FROM measured_reliability WHERE campaign = $campaign
ORDER BY week DESC, computed_at DESC;
