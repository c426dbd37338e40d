-- in: pilot_steps   params: none   out: the landed pilot step rows checked for quality
SELECT run_id, step, wall_seconds, tokens, gpus, peak_memory_bytes
FROM pilot_steps;
