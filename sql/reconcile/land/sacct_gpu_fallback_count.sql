-- in: sacct_rows   params: $source_id (the landing in progress), $flag ('gpus-from-reqtres')
-- out: jobs (allocation rows, no step) of this landing, and how many carry $flag
SELECT count(*) FILTER (WHERE step IS NULL),
       count(*) FILTER (WHERE step IS NULL AND time_flags IS NOT NULL
                        AND list_contains(time_flags, $flag))
FROM sacct_rows
WHERE source_id = $source_id;
