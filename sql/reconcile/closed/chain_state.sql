-- in: closed_accounting   params: none
-- out: per chain of the closed jobs: the high-water step and the job id its walk reached
--      after its last closed job, and that job's place (timelines.split_chains goes on from
--      there)
SELECT chain, arg_max(walk_high_water, chain_pos) AS high_water,
       arg_max(job_id, chain_pos) AS previous, max(chain_pos) AS last_pos
FROM closed_accounting
WHERE chain IS NOT NULL
GROUP BY chain;
