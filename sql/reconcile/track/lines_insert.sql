-- in: sacct_rows, tracked_add_keys (add_keys.sql), tracked_lines   params: none
-- out: (copies into tracked_lines every line of those jobs it does not hold yet: a line is
--      its landing and line number, or, without a number, its job, step and submit time)
INSERT INTO tracked_lines
SELECT r.* FROM sacct_rows r SEMI JOIN tracked_add_keys k USING (cluster, job_id)
WHERE NOT EXISTS (SELECT 1 FROM tracked_lines t
                  WHERE t.source_id = r.source_id
                    AND t.source_line IS NOT DISTINCT FROM r.source_line
                    AND t.cluster = r.cluster AND t.job_id = r.job_id
                    AND t.step IS NOT DISTINCT FROM r.step
                    AND t.submit_time IS NOT DISTINCT FROM r.submit_time);
