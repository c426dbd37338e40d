-- in: sacct_rows   params: none
-- out: cluster, allocations: the clusters the ledger has scheduler records of.
SELECT cluster, count(*) FILTER (WHERE step IS NULL) AS allocations
FROM sacct_rows GROUP BY cluster ORDER BY cluster;
