-- in: none   params: none
-- out: an empty temp table sacct_raw, as for a text export; sacct_json.py fills it with one
--      numbered line per job or step record (its fields joined by \x1f)
CREATE OR REPLACE TEMP TABLE sacct_raw (lineno BIGINT, line VARCHAR);
