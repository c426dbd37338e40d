-- in: week_allocations   params: none
-- out: the end of the earliest cached week (NULL when none is): first_started.sql's bound
SELECT min(week_end) FROM week_allocations;
