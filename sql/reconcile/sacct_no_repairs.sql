-- in: none   params: none   out: an empty temp table sacct_repaired (JSON needs no repairs)
CREATE OR REPLACE TEMP TABLE sacct_repaired (lineno BIGINT, line VARCHAR, parts VARCHAR[]);
