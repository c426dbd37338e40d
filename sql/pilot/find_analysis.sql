-- in: pilot_analyses   params: $analysis_key   out: analysis_key, analyzed_at of an earlier identical analysis
SELECT analysis_key, analyzed_at
FROM pilot_analyses
WHERE analysis_key = $analysis_key;
