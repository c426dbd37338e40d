-- in: params: one measured_reliability row   out: (the campaign-week's row, replaced)
-- MERGE, not INSERT OR REPLACE: the team ledger (DuckLake) has no key to replace on.
MERGE INTO measured_reliability AS m
USING (
    SELECT $campaign AS campaign, $week AS week, $cluster AS cluster, $main_gpus AS main_gpus,
           $allocated AS allocated_gpu_seconds, $productive AS productive_gpu_seconds,
           $restart AS restart_gpu_seconds, $recomputation AS recomputation_gpu_seconds,
           $lost_progress AS lost_progress_gpu_seconds,
           $checkpoint_writes AS checkpoint_write_gpu_seconds, $ettr AS ettr,
           $interruptions AS interruptions, $job_seconds_at_risk AS job_seconds_at_risk,
           $restarts AS restarts, $restart_median_seconds AS restart_median_seconds,
           $now AS computed_at
) AS s
ON m.campaign = s.campaign AND m.week = s.week
WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT;
