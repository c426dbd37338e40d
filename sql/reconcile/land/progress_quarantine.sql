-- in: progress_stage   params: $source_id, $source_path, $now
-- out: (every rejected event line into quarantine with its reason)
INSERT INTO quarantine (source_id, source_path, source_line, raw, reason, quarantined_at)
SELECT $source_id, $source_path, lineno, raw, problem, $now
FROM progress_stage
WHERE problem IS NOT NULL;
