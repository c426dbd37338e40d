-- in: job_billing   params: none
-- out: partition, alloc_cpus, alloc_mem_bytes, gpus, nnodes, billing (recorded), jobs and the
--      first job ids: each distinct billed shape of the week's jobs, so the plan's weights
--      price a shape once (reconcile/billing.py) rather than once a job.
SELECT partition, alloc_cpus, alloc_mem_bytes, gpus, nnodes, billing,
       count(*) AS jobs,
       list(job_id ORDER BY alloc_id)[1:5] AS job_ids
FROM job_billing
WHERE in_week AND billing IS NOT NULL
GROUP BY ALL
ORDER BY jobs DESC, partition NULLS FIRST, billing;
