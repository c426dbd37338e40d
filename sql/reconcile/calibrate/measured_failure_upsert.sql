-- in: params $campaign, $failure_fraction, $useful, $lost, $recovery (GPU-hours), $now
-- out: (the campaign's measured f, replacing the previous week's value)
INSERT OR REPLACE INTO measured_failure
VALUES ($campaign, $failure_fraction, $useful, $lost, $recovery, $now);
