-- in: closing, job_accounting, tracked_splits   params: $now
-- out: (the closing allocations' job_accounting rows into closed_accounting, with their start,
--      their place in their chain's walk and, for a split job, its stored split, kept with
--      the row so the diagnosis can read it while the job is closed: tracked_splits holds
--      every split the review computed or reused, but for jobs sharing a job id and start,
--      which are never closed)
INSERT INTO closed_accounting BY NAME
SELECT c.closed_id, CAST(epoch(coalesce(a.start_time, a.submit_time)) AS BIGINT) AS t0,
       c.chain, c.chain_pos, c.walk_high_water,
       CASE WHEN c.chain IS NOT NULL THEN s.tracked_json END AS tracked_json,
       a.* EXCLUDE (alloc_id), CAST($now AS TIMESTAMPTZ) AS computed_at
FROM closing c
-- The closing rows first (a semi join builds on closing): the temp tables carry no row
-- estimates, and a plain join built its hash table on every job_accounting row (0.05 s).
JOIN (SELECT * FROM job_accounting WHERE alloc_id IN (SELECT alloc_id FROM closing)) a
  USING (alloc_id)
LEFT JOIN tracked_splits s
  ON s.cluster = a.cluster AND s.job_id = a.job_id  -- equalities only: a hash join
 AND s.start_s = CAST(epoch(a.start_time) AS BIGINT);
