-- in: audit_ratios (the audit of each run, from calibration.py)   params: $now
-- out: (replaces the calibration of every (work class, cluster, quantity) it measures:
--      actual ÷ estimate over completed runs, with its spread; runtime also gives the
--      calibrated MFU = estimated MFU ÷ runtime ratio that the estimator offers)
-- MERGE, not INSERT OR REPLACE: the team ledger (DuckLake) has no key to replace on.
MERGE INTO calibration AS c
USING (
    SELECT work_class, cluster, quantity, count(*)::INTEGER AS runs, avg(ratio) AS ratio_mean,
           stddev_samp(ratio) AS ratio_stddev, min(ratio) AS ratio_min,
           max(ratio) AS ratio_max,
           CASE WHEN quantity = 'runtime' THEN avg(mfu / ratio) END AS mfu_calibrated,
           $now AS computed_at
    FROM (
        SELECT work_class, cluster, 'runtime' AS quantity, runtime_ratio AS ratio, mfu
        FROM audit_ratios WHERE completed AND runtime_ratio > 0
        UNION ALL
        SELECT work_class, cluster, 'gpu_hours', gpu_hours_ratio, mfu
        FROM audit_ratios WHERE completed AND gpu_hours_ratio > 0
    )
    GROUP BY work_class, cluster, quantity
) AS s
ON c.work_class = s.work_class AND c.cluster = s.cluster AND c.quantity = s.quantity
WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT;
