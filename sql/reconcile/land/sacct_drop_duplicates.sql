-- in: sacct_rows, sacct_rejected   params: $source_id (the landing in progress)
-- out: (removes this landing's rows that sacct_mark_duplicates rejected) and the count
DELETE FROM sacct_rows
WHERE source_id = $source_id
  AND source_line IN (SELECT lineno FROM sacct_rejected);
