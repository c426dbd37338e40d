-- in: params: one measured_reliability row   out: (the campaign-week's row, replaced)
INSERT OR REPLACE INTO measured_reliability VALUES (
    $campaign, $week, $cluster, $main_gpus, $allocated, $productive, $restart, $recomputation,
    $lost_progress, $checkpoint_writes, $ettr, $interruptions, $job_seconds_at_risk, $restarts,
    $restart_median_seconds, $now);
