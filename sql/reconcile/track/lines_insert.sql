-- in: sacct_rows, tracked_add_keys (add_keys.sql), tracked_lines   params: none
-- out: (copies into tracked_lines every line of those jobs it does not hold yet: a line is
--      its landing and line number)
INSERT INTO tracked_lines
SELECT r.* FROM sacct_rows r SEMI JOIN tracked_add_keys k USING (cluster, job_id)
WHERE NOT EXISTS (SELECT 1 FROM tracked_lines t
                  WHERE t.source_id = r.source_id AND t.source_line = r.source_line);
