-- in: pilot_analyses   params: $gpu (NULL = any)   out: the newest measured pilot MFU with its context
SELECT mfu, mfu_source, gpu, precision, params, tokens_per_gpu_second, mix_coverage,
       worst_case_measured, source_paths, analyzed_at, analysis_key
FROM pilot_analyses
WHERE mfu IS NOT NULL AND ($gpu IS NULL OR lower(gpu) = lower($gpu))
ORDER BY analyzed_at DESC
LIMIT 1;
