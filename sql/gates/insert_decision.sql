-- in: params $decided_at, $gate, $campaign_id, $run_id, $outcome, $reason, $sentence,
--     $inputs, $details (JSON text), $decision_key (sha256 hex of the decision's content)
-- out: decision_id
INSERT INTO decisions (decided_at, gate, campaign_id, run_id, outcome, reason, sentence,
                       inputs, details, decision_key)
VALUES ($decided_at, $gate, $campaign_id, $run_id, $outcome, $reason, $sentence,
        $inputs, $details, $decision_key)
RETURNING decision_id;
