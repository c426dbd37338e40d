-- in: closed_accounting, closed_billing, closed_stretches   params: none
-- out: (every closed row removed: the review's clock tolerance or registry presence changed)
DELETE FROM closed_accounting;
DELETE FROM closed_billing;
DELETE FROM closed_stretches;
