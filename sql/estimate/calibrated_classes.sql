-- in: calibration (migration 007)   params: none
-- out: work_class, cluster of every runtime calibration that carries a calibrated MFU
--      (named in the error when the asked-for work class has none).
SELECT work_class, cluster
FROM calibration
WHERE quantity = 'runtime' AND mfu_calibrated IS NOT NULL
ORDER BY work_class, cluster;
