-- in: job_accounting, review_records, gpu_usage (migration 017)
-- params: $has_usage (false: gpu_usage is empty, so nothing is joined), $sums_gpus (true: the
--         cluster's Slurm is 24.05.1 or later and TRESUsageIn* gres/gpuutil and gres/gpumem
--         are summed over the step's GPUs; false: 23.02 to 24.05.0, where each task recorded
--         one GPU, so TRESUsageInAve is already per GPU), $idle_pct (jobstats' red line)
-- out: temp table job_gpu_usage: one row per allocation of job_accounting (alloc_id) that has
--      a gpu_usage line (an allocation without one says nothing: its figures would all be
--      NULL and its GPU-seconds 0, so readers LEFT JOIN or count job_accounting for it), with
--      what its GPUs did, per GPU, and the GPU-seconds the diagnosis prices:
--      gpu_util_pct      jobstats' mean over the job's GPUs when its AdminComment has a JS1
--                        summary; else sacct's per-GPU figure of each GPU step (24.05.1+:
--                        TRESUsageInTot ÷ the step's GPUs; before: TRESUsageInAve), averaged
--                        over the steps but extern, weighted by GPUs × elapsed (a peak of watermarks:
--                        the step's busiest moment, so under 15 % it was never busier);
--                        NULL when nothing says. DECIMAL(18, 6), rounded half up.
--      gpu_mem_used_gib  the most memory one GPU used (jobstats), else the largest per-GPU
--                        gres/gpumem of its steps, in GiB (2^30 bytes), DECIMAL(18, 6)
--      gpus_used         jobstats' GPUs above 0 %, else the most GPUs any of its steps held
--                        (batch, extern and interactive hold the first node's; not counted);
--                        NULL when nothing says
--      usage_source      'jobstats', 'sacct' or NULL;  usage_flags  the lines' gpu_usage flags,
--                        and 'gpu-util-over-100' when a step reads over 100 % a GPU
--      idle_gpu_seconds  the week's allocated GPU-seconds of a job under $idle_pct
--      unused_gpu_seconds (GPUs − gpus_used) × its seconds in the week, when it used fewer
CREATE OR REPLACE TEMP TABLE job_gpu_usage AS
WITH lines AS (
    SELECT rec.cluster, rec.job_id, rec.step, rec.submit_time, rec.start_time,
           rec.elapsed_seconds, rec.gpus AS line_gpus, rec.source_line,
           g.util_tot, g.util_ave, g.mem_tot_bytes, g.mem_ave_bytes,
           g.js_gpus, g.js_util_pct, g.js_gpus_used, g.js_mem_max_bytes, g.flags
    FROM review_records rec
    JOIN gpu_usage g ON g.source_id = rec.source_id AND g.source_line = rec.source_line
    -- The extern step holds the job's GPUs in its AllocTRES but runs nothing on them.
    WHERE $has_usage AND rec.step IS DISTINCT FROM 'extern'
), per_gpu AS MATERIALIZED (
    -- Per GPU, in micro-percent and bytes, rounded half up (integers: exact).
    SELECT l.*,
           CASE WHEN line_gpus > 0 AND $sums_gpus AND util_tot IS NOT NULL
                    THEN (CAST(util_tot * 1000000 AS HUGEINT) * 2 + line_gpus) // (2 * line_gpus)
                WHEN line_gpus > 0 AND NOT $sums_gpus AND util_ave IS NOT NULL
                    THEN CAST(util_ave * 1000000 AS HUGEINT)
           END AS util_u,
           CASE WHEN line_gpus > 0 AND $sums_gpus AND mem_tot_bytes IS NOT NULL
                    THEN (CAST(mem_tot_bytes AS HUGEINT) * 2 + line_gpus) // (2 * line_gpus)
                WHEN line_gpus > 0 AND NOT $sums_gpus THEN CAST(mem_ave_bytes AS HUGEINT)
           END AS mem_b
    FROM lines l
), matched AS (
    -- A step belongs to the allocation of its job id that was running when it started (a
    -- requeued job repeats its id); the allocation line to the one with its submit time.
    -- Only the allocations of the jobs with usage lines are joined (a semi join first: the
    -- week's hundreds of thousands of allocations are probed, not hashed), and what the
    -- output keeps of them rides along, so job_accounting is not joined back.
    SELECT a.alloc_id, a.work_class AS a_work_class, a.gpus AS a_gpus, a.in_week AS a_in_week,
           a.allocated_gpu_seconds AS a_allocated_gpu_seconds,
           a.week_elapsed_seconds AS a_week_elapsed_seconds, p.*
    FROM (SELECT * FROM job_accounting
          SEMI JOIN (SELECT DISTINCT cluster, job_id FROM per_gpu) k USING (cluster, job_id)) a
    JOIN per_gpu p
      ON p.cluster = a.cluster AND p.job_id = a.job_id
     AND ((p.step IS NULL AND p.submit_time IS NOT DISTINCT FROM a.submit_time)
          OR (p.step IS NOT NULL
              AND (a.start_time IS NULL OR p.start_time IS NULL
                   OR (p.start_time >= a.start_time
                       AND p.start_time <= a.start_time + to_seconds(a.elapsed_seconds)))))
), by_job AS (
    SELECT alloc_id, any_value(cluster) AS cluster, any_value(job_id) AS job_id,
           any_value(a_work_class) AS work_class, any_value(a_gpus) AS gpus,
           any_value(a_in_week) AS in_week,
           any_value(a_allocated_gpu_seconds) AS allocated_gpu_seconds,
           any_value(a_week_elapsed_seconds) AS week_elapsed_seconds,
           sum(util_u * line_gpus * greatest(elapsed_seconds, 1))
               FILTER (WHERE util_u IS NOT NULL) AS util_w,
           sum(CAST(line_gpus AS HUGEINT) * greatest(elapsed_seconds, 1))
               FILTER (WHERE util_u IS NOT NULL) AS w,
           max(mem_b) AS mem_b,
           max(line_gpus) FILTER (WHERE step IS NOT NULL
                                    AND step NOT IN ('batch', 'extern', 'interactive'))
               AS step_gpus,
           max(js_util_pct) FILTER (WHERE step IS NULL) AS js_util_pct,
           max(js_gpus_used) FILTER (WHERE step IS NULL) AS js_gpus_used,
           max(js_mem_max_bytes) FILTER (WHERE step IS NULL) AS js_mem_b,
           -- A GPU cannot be busier than 100 %: more says the exports sum over GPUs while
           -- cluster.slurm_version says they do not (or the reverse is hidden below 100).
           nullif(list_distinct(flatten(list(coalesce(flags, []))
                                        || CASE WHEN max(util_u) > 100000000
                                                THEN [['gpu-util-over-100']] ELSE [] END)),
                  []) AS usage_flags
    FROM matched
    GROUP BY alloc_id
), figures AS (
    SELECT j.alloc_id, j.cluster, j.job_id, j.work_class, j.gpus, j.in_week,
           j.allocated_gpu_seconds, j.week_elapsed_seconds,
           coalesce(j.js_util_pct,
                    CASE WHEN j.w > 0 THEN CAST(CAST((2 * j.util_w + j.w) // (2 * j.w)
                                                     AS DECIMAL(18, 0)) * 0.000001 AS DECIMAL(18, 6))
                    END) AS gpu_util_pct,
           CASE WHEN coalesce(j.js_mem_b, j.mem_b) IS NOT NULL
                THEN CAST(CAST((CAST(coalesce(j.js_mem_b, j.mem_b) AS HUGEINT) * 2000000 + 1073741824)
                               // 2147483648 AS DECIMAL(18, 0)) * 0.000001 AS DECIMAL(18, 6))
           END AS gpu_mem_used_gib,
           CAST(coalesce(j.js_gpus_used, j.step_gpus) AS INTEGER) AS gpus_used,
           CASE WHEN j.js_util_pct IS NOT NULL OR j.js_gpus_used IS NOT NULL
                     OR j.js_mem_b IS NOT NULL THEN 'jobstats'
                WHEN j.w > 0 OR j.mem_b IS NOT NULL OR j.step_gpus IS NOT NULL THEN 'sacct'
           END AS usage_source,
           j.usage_flags
    FROM by_job j
)
SELECT *,
       CASE WHEN gpus > 0 AND gpu_util_pct < $idle_pct THEN allocated_gpu_seconds ELSE 0 END
           AS idle_gpu_seconds,
       CASE WHEN gpus_used < gpus THEN (gpus - gpus_used) * week_elapsed_seconds ELSE 0 END
           AS unused_gpu_seconds
FROM figures;
