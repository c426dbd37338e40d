-- 003: the audit trail of gate decisions (issue 4).
-- decisions: one row per gate verdict, written in the same transaction as what caused it.
CREATE SEQUENCE IF NOT EXISTS decision_id_seq START 1;

CREATE TABLE decisions (
    decision_id  BIGINT PRIMARY KEY DEFAULT nextval('decision_id_seq'),
    decided_at   TIMESTAMPTZ NOT NULL,
    gate         VARCHAR NOT NULL,   -- admission, stop-rules, continuation, retry, ..., decision
    campaign_id  VARCHAR,            -- the plan's campaign name, when known
    run_id       VARCHAR,            -- the run, job or artifact the verdict is about
    outcome      VARCHAR NOT NULL,   -- admit, defer, stop, continue, promote, reject, ...
    reason       VARCHAR,            -- stable reason code; NULL when nothing blocked
    sentence     VARCHAR NOT NULL,   -- the one-line explanation shown to people
    inputs       JSON NOT NULL,      -- every value the gate saw, thresholds included
    details      JSON NOT NULL       -- the gate's own figures (reserved hours, projection, ...)
);
