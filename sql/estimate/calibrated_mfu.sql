-- in: calibration (migration 007)   params: $work_class, $cluster (NULL = any cluster)
-- out: the runtime calibration rows of one work class that carry a calibrated MFU, one per
--      cluster: cluster, runs, ratio mean / stddev / min / max (actual ÷ estimate),
--      mfu_calibrated (mean of estimated MFU ÷ runtime ratio), computed_at.
SELECT work_class, cluster, quantity, runs, ratio_mean, ratio_stddev, ratio_min, ratio_max,
       mfu_calibrated, computed_at
FROM calibration
WHERE quantity = 'runtime'
  AND mfu_calibrated IS NOT NULL
  AND work_class = $work_class
  AND ($cluster IS NULL OR cluster = $cluster)
ORDER BY cluster;
