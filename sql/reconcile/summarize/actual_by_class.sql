-- in: job_accounting   params: none
-- out: work_class, allocated GPU-seconds, useful, recovery, lost: campaign to date (up to the
--      end of the reviewed week), for actual-versus-plan and the measured failure fraction.
SELECT work_class,
       sum(allocated_gpu_seconds) AS allocated,
       sum(useful_gpu_seconds) AS useful,
       sum(recovery_gpu_seconds) AS recovery,
       sum(lost_gpu_seconds) AS lost,
       count(*) AS jobs
FROM job_accounting
WHERE to_date
GROUP BY work_class
ORDER BY work_class;
