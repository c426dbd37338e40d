-- in: closed_accounting   params: $t0 (epoch seconds)
-- out: temp table closed_gone(closed_id): the closed allocations starting at or after $t0,
--      which forget_gone.sql removes (the next review reads those jobs again)
CREATE OR REPLACE TEMP TABLE closed_gone AS
SELECT closed_id FROM closed_accounting WHERE t0 >= $t0;
