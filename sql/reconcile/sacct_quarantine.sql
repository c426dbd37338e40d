-- in: sacct_parsed, sacct_lines (the raw text)   params: $source_id, $source_path, $now
-- out: (every rejected line into quarantine, with its reason and raw text)
INSERT INTO quarantine (source_id, source_path, source_line, raw, reason, quarantined_at)
SELECT $source_id, $source_path, p.lineno, s.line, p.problem, $now
FROM sacct_parsed p
JOIN sacct_lines s USING (lineno)
WHERE p.problem IS NOT NULL;
