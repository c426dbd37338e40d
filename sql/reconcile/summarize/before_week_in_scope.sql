-- in: job_accounting_all   params: none
-- out: GPU-seconds the jobs the review read ran before the reviewed weeks began (to date,
--      less the part inside the weeks): what reconcile/history.py subtracts from the cached
--      weeks to leave the earlier jobs the review did not read
SELECT coalesce(sum(to_date_allocated_gpu_seconds - allocated_gpu_seconds), 0)
FROM job_accounting_all
WHERE to_date;
