-- in: registry   params: none   out: one row when any registry row was landed
SELECT 1 FROM registry LIMIT 1;
