-- in: job_accounting_all   params: none
-- out: work_class, allocated GPU-seconds, useful, recovery, lost: campaign to date (up to the
--      end of the reviewed week: a job running past it counts its seconds before it), for actual-versus-plan and the measured failure fraction.
SELECT work_class,
       sum(to_date_allocated_gpu_seconds) AS allocated,
       sum(to_date_useful_gpu_seconds) AS useful,
       sum(to_date_recovery_gpu_seconds) AS recovery,
       sum(to_date_lost_gpu_seconds) AS lost,
       count(*) AS jobs
FROM job_accounting_all
WHERE to_date
GROUP BY work_class
ORDER BY work_class;
