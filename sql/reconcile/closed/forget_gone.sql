-- in: closed_gone, closed_accounting, closed_billing, closed_stretches   params: none
-- out: (the allocations of closed_gone removed, with their billing and stretches)
DELETE FROM closed_billing WHERE closed_id IN (SELECT closed_id FROM closed_gone);
DELETE FROM closed_stretches WHERE closed_id IN (SELECT closed_id FROM closed_gone);
DELETE FROM closed_accounting WHERE closed_id IN (SELECT closed_id FROM closed_gone);
