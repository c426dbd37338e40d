-- in: sacct_rows   params: $source_id (the landing in progress)
-- out: true when two lines of this landing may share (cluster, job id, step, submit time).
--      Distinct hashes mean distinct keys, so false is exact; a hash collision only sends the
--      landing to sacct_mark_duplicates, which compares the keys themselves. One hash per row
--      is cheaper to count than a grouping on the four columns (0.13 s against 0.20 s for a
--      million lines).
SELECT count(DISTINCT hash(cluster, job_id, step, submit_time)) < count(*)
FROM sacct_rows
WHERE source_id = $source_id;
