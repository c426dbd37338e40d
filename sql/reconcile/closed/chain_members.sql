-- in: closed_accounting   params: $chain
-- out: the closed jobs of one chain that its walk split, last first: closed id, job id, max
--      step and the stored split (for the diagnosis: a resume's checkpoint, the state of the
--      job it blames)
SELECT closed_id, job_id, max_step, tracked_json
FROM closed_accounting
WHERE chain = $chain AND tracked_json IS NOT NULL
ORDER BY chain_pos DESC;
