-- in: audit_ratios (the audit of each run, from calibration.py)   params: $now
-- out: (replaces the calibration of every (work class, cluster, quantity) it measures:
--      actual ÷ estimate over completed runs, with its spread; runtime also gives the
--      calibrated MFU = estimated MFU ÷ runtime ratio that the estimator offers)
INSERT OR REPLACE INTO calibration
SELECT work_class, cluster, quantity, count(*), avg(ratio), stddev_samp(ratio), min(ratio),
       max(ratio), CASE WHEN quantity = 'runtime' THEN avg(mfu / ratio) END, $now
FROM (
    SELECT work_class, cluster, 'runtime' AS quantity, runtime_ratio AS ratio, mfu
    FROM audit_ratios WHERE completed AND runtime_ratio > 0
    UNION ALL
    SELECT work_class, cluster, 'gpu_hours', gpu_hours_ratio, mfu
    FROM audit_ratios WHERE completed AND gpu_hours_ratio > 0
)
GROUP BY work_class, cluster, quantity;
