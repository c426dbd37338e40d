-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: (adds to sacct_rejected all but the last line of each (cluster, job id, step, submit
--      time) of this landing, naming the line that was kept; sacct_drop_duplicates removes
--      them from sacct_rows and they are quarantined)
INSERT INTO sacct_rejected (lineno, problem)
SELECT source_line,
       concat('duplicate of line ', kept_line,
              ' (same cluster, job id, step and submit time); the later line was kept')
FROM (
    SELECT source_line,
           max(source_line) OVER (PARTITION BY cluster, job_id, step, submit_time) AS kept_line
    FROM sacct_rows
    WHERE source_id = $source_id
)
WHERE source_line <> kept_line;
