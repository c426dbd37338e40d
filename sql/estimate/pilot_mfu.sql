-- in: pilot_analyses, pilot_buckets (migration 005)   params: $gpu (NULL = any GPU)
-- out: the newest pilot analysis with a measured MFU (for that GPU, case-insensitive), with its
--      steps, runs, inputs and the lowest / highest MFU of its shape buckets (the spread).
WITH newest AS (
    SELECT analysis_key, analyzed_at, mfu, gpu, precision, params, steps, runs,
           tokens_per_gpu_second, mix_coverage, worst_case_measured, source_paths,
           source_sha256s
    FROM pilot_analyses
    WHERE mfu IS NOT NULL AND ($gpu IS NULL OR lower(gpu) = lower($gpu))
    ORDER BY analyzed_at DESC, analysis_key
    LIMIT 1
)
SELECT n.*, min(b.mfu) AS bucket_mfu_min, max(b.mfu) AS bucket_mfu_max,
       count(b.mfu) AS buckets
FROM newest n LEFT JOIN pilot_buckets b USING (analysis_key)
GROUP BY ALL;
