-- in: job_accounting   params: none
-- out: job_id, submit_time (ISO UTC), clusters, copies, allocated (GPU-seconds over all its
--      copies in the reviewed week), excess (what the copies beyond the largest add): every
--      (job id, submit time) landed under more than one cluster name, the largest first. A
--      probable double count: the same export as --json (it names its cluster) and as text
--      without a Cluster field (landed under --cluster, default 'default').
SELECT job_id,
       strftime(make_timestamp(epoch_us(submit_time)), '%Y-%m-%dT%H:%M:%SZ') AS submit_time,
       double_count_clusters AS clusters,
       count(*) AS copies,
       sum(allocated_gpu_seconds) AS allocated,
       sum(allocated_gpu_seconds) - max(allocated_gpu_seconds) AS excess
FROM job_accounting
WHERE in_week AND double_count_clusters IS NOT NULL
GROUP BY job_id, job_accounting.submit_time, double_count_clusters
ORDER BY excess DESC, job_id, submit_time;
