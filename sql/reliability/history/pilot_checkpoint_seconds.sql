-- in: pilot_analyses   params: none
-- out: the median blocking checkpoint write (s) each analysed pilot measured, where it did.
SELECT checkpoint_median_seconds AS seconds
FROM pilot_analyses
WHERE checkpoint_median_seconds IS NOT NULL AND checkpoint_writes > 0;
