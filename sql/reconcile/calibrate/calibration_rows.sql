-- in: calibration   params: none
-- out: every calibration row: work class, cluster, quantity, runs, ratio mean / stddev / min /
--      max, calibrated MFU (runtime rows), when computed. Read by the estimator.
SELECT work_class, cluster, quantity, runs, ratio_mean, ratio_stddev, ratio_min, ratio_max,
       mfu_calibrated, computed_at
FROM calibration
ORDER BY work_class, cluster, quantity;
