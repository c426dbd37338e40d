-- in: scaling_fit_id_seq   out: next_id, the id of the fit about to be landed
SELECT nextval('scaling_fit_id_seq') AS next_id;
