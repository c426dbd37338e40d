-- 011: decisions are idempotent: decision_key is the sha256 of the canonical JSON of (gate,
--   campaign, run, outcome, reason, inputs, details), so the same gate on the same inputs for
--   the same campaign and run is recorded once however often a flow runs (gates/audit.py).
--   Decisions recorded before this migration keep a NULL key.
ALTER TABLE decisions ADD COLUMN decision_key VARCHAR;
CREATE UNIQUE INDEX decisions_key ON decisions (decision_key);
