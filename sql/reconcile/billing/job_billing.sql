-- in: job_accounting, review_records   params: $week_end (NULL = no week: everything landed)
-- out: temp table job_billing: one row per allocation of job_accounting (alloc_id) with the
--      `billing` TRES its allocation line's AllocTRES recorded (`billing=N`, Slurm's integer;
--      NULL when the line has none: a job built from its steps, or an export without it), the
--      TRES it was billed for (alloc_cpus: AllocTRES cpu=N, else AllocCPUS; alloc_mem_bytes,
--      gpus, nnodes, partition), and
--      billing-seconds = N × seconds: allocated_billing_seconds inside the reviewed week
--      (job_accounting's week_elapsed_seconds), to_date_billing_seconds before its end, and
--      job_billing_seconds over the whole allocation (N × ElapsedRaw).
CREATE OR REPLACE TEMP TABLE job_billing AS
WITH lines AS (
    -- The CPUs billed are AllocTRES's cpu=N (what Slurm weighed), else AllocCPUS.
    SELECT cluster, job_id, submit_time, alloc_mem_bytes, nnodes,
           coalesce(TRY_CAST(regexp_extract(alloc_tres, '(^|,)cpu=([0-9]+)', 2) AS INTEGER),
                    alloc_cpus) AS alloc_cpus,
           TRY_CAST(regexp_extract(alloc_tres, '(^|,)billing=([0-9]+)', 2) AS BIGINT) AS billing
    FROM review_records
    WHERE step IS NULL
), joined AS (
    SELECT a.alloc_id, a.cluster, a.job_id, a.partition, a.work_class, a.gpus, a.in_week,
           a.to_date, a.elapsed_seconds, a.week_elapsed_seconds, a.start_time, a.submit_time,
           l.alloc_cpus, l.alloc_mem_bytes, l.nnodes,
           CASE WHEN a.from_steps THEN NULL ELSE l.billing END AS billing,
           CAST(epoch(coalesce(a.start_time, a.submit_time)) AS BIGINT) AS t0,
           CAST(epoch(CAST($week_end AS TIMESTAMPTZ)) AS BIGINT) AS we
    FROM job_accounting a
    LEFT JOIN lines l
      ON l.cluster = a.cluster AND l.job_id = a.job_id
     AND l.submit_time IS NOT DISTINCT FROM a.submit_time
)
SELECT alloc_id, cluster, job_id, partition, work_class, gpus, alloc_cpus, alloc_mem_bytes,
       nnodes, billing, in_week, to_date, t0, elapsed_seconds,
       billing * week_elapsed_seconds AS allocated_billing_seconds,
       billing * CASE WHEN we IS NULL THEN elapsed_seconds
                      ELSE greatest(0, least(elapsed_seconds, we - t0)) END
           AS to_date_billing_seconds,
       billing * elapsed_seconds AS job_billing_seconds
FROM joined;
