-- in: params $decided_at, $gate, $campaign_id, $run_id, $outcome, $reason, $sentence,
--     $inputs, $details (JSON text)   out: decision_id
INSERT INTO decisions (decided_at, gate, campaign_id, run_id, outcome, reason, sentence,
                       inputs, details)
VALUES ($decided_at, $gate, $campaign_id, $run_id, $outcome, $reason, $sentence,
        $inputs, $details)
RETURNING decision_id;
