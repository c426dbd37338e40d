-- in: job_gpu_usage   params: $kind ('idle': under the red line; 'oversized': evaluation
--     jobs that used fewer GPUs than they reserved), $limit
-- out: those jobs of the week, the most GPU-seconds first (then job id): what they reserved,
--      what they used, and the GPU-seconds the finding prices
SELECT job_id, cluster, work_class, gpus, gpus_used, gpu_util_pct, gpu_mem_used_gib,
       usage_source, allocated_gpu_seconds,
       CASE WHEN $kind = 'idle' THEN idle_gpu_seconds ELSE unused_gpu_seconds END AS gpu_seconds
FROM job_gpu_usage
WHERE in_week
  AND CASE WHEN $kind = 'idle' THEN idle_gpu_seconds > 0
           ELSE work_class = 'evaluation' AND unused_gpu_seconds > 0 END
ORDER BY gpu_seconds DESC, job_id, cluster
LIMIT $limit;
