-- in: sacct_rows   params: none
-- out: cluster, jobs: the clusters the ledger has scheduler records of.
SELECT cluster, count(*) FILTER (WHERE step IS NULL) AS jobs
FROM sacct_rows GROUP BY cluster ORDER BY cluster;
