-- in: gpu_usage   params: none
-- out: one row when any line ever landed GPU usage (the review joins gpu_usage only then)
SELECT 1 FROM gpu_usage LIMIT 1;
