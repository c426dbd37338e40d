-- in: sacct_parsed   out: (marks all but the last line of each (cluster, job id, step,
--     submit time) as a duplicate, naming the line that was kept; they are quarantined)
UPDATE sacct_parsed AS p
SET problem = concat('duplicate of line ', d.kept_line,
                     ' (same cluster, job id, step and submit time); the later line was kept')
FROM (
    SELECT lineno,
           max(lineno) OVER (PARTITION BY cluster, job_id, step, submit_time) AS kept_line
    FROM sacct_parsed
    WHERE problem IS NULL
) d
WHERE p.lineno = d.lineno AND d.lineno <> d.kept_line;
