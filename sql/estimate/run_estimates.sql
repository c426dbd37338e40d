-- Estimates recorded for one run id, newest first (for auditing estimate against actual).
-- in: run_estimates   params: $run_id
-- out: estimate_id, run_id, campaign, gpus, mfu, mfu_source, wall_seconds, gpu_hours,
--      dollar_cost, estimated_at
SELECT estimate_id, run_id, campaign, gpus, mfu, mfu_source, wall_seconds, gpu_hours,
       dollar_cost, estimated_at
FROM run_estimates
WHERE run_id = $run_id
ORDER BY estimated_at DESC, estimate_id DESC;
