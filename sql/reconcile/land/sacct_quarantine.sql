-- in: sacct_rejected, sacct_lines (the raw text)   params: $source_id, $source_path, $now
-- out: (every rejected line into quarantine, with its reason and raw text). The few rejected
--      line numbers are the semi-join's build side, so the million lines are only probed (a
--      plain join of the two built its hash table on the lines: 0.4–1.9 CPU-s for a
--      million, even with nothing rejected); land.py skips it when nothing was rejected.
INSERT INTO quarantine (source_id, source_path, source_line, raw, reason, quarantined_at)
SELECT $source_id, $source_path, r.lineno, s.line, r.problem, $now
FROM sacct_rejected r
JOIN (SELECT lineno, line FROM sacct_lines
      WHERE lineno IN (SELECT lineno FROM sacct_rejected)) s USING (lineno);
