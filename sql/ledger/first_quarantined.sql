-- in: quarantine   params: $source_id   out: source_line, reason of the source's first
--     quarantined row (line order; a whole-file reason has no line)
SELECT source_line, reason
FROM quarantine
WHERE source_id = $source_id
ORDER BY source_line NULLS FIRST
LIMIT 1;
