-- 009: the MFU each campaign's pre-launch run priced its main run with (estimate/mfu_rule.py),
--   so the weekly review plans the main run with the same number. mfu is the exact decimal as
--   text (NULL when the plan fixes the main run's hours and no MFU is used).
CREATE TABLE mfu_choices (
    campaign_id VARCHAR NOT NULL,
    run_id      VARCHAR NOT NULL,
    mfu         VARCHAR,
    mfu_source  VARCHAR NOT NULL,
    chosen_at   TIMESTAMPTZ NOT NULL
);
