-- in: sacct_rejected, sacct_lines (the raw text)   params: $source_id, $source_path, $now
-- out: (every rejected line into quarantine, with its reason and raw text)
INSERT INTO quarantine (source_id, source_path, source_line, raw, reason, quarantined_at)
SELECT $source_id, $source_path, r.lineno, s.line, r.problem, $now
FROM sacct_rejected r
JOIN sacct_lines s USING (lineno);
