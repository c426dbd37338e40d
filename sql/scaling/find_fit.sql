-- in: scaling_fits   params: $fit_key   out: fit_id, fitted_at of the fit landed earlier
SELECT fit_id, fitted_at
FROM scaling_fits
WHERE fit_key = $fit_key;
