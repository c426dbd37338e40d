-- in: params $campaign, $failure_fraction, $useful, $lost, $recovery (GPU-hours), $now
-- out: (the campaign's measured f, replacing the previous week's value)
-- MERGE, not INSERT OR REPLACE: the team ledger (DuckLake) has no key to replace on.
MERGE INTO measured_failure AS m
USING (
    SELECT $campaign AS campaign, $failure_fraction AS failure_fraction,
           $useful AS main_useful_gpu_hours, $lost AS main_lost_gpu_hours,
           $recovery AS main_recovery_gpu_hours, $now AS computed_at
) AS s
ON m.campaign = s.campaign
WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT;
