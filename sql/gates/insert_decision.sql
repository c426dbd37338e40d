-- in: params $decision_id (Ledger.next_id('decision_id_seq')), $decided_at, $gate,
--     $campaign_id, $run_id, $outcome, $reason, $sentence, $inputs, $details (JSON text),
--     $decision_key (sha256 hex of the decision's content)
-- out: (the decision's row)
INSERT INTO decisions (decision_id, decided_at, gate, campaign_id, run_id, outcome, reason,
                       sentence, inputs, details, decision_key)
VALUES ($decision_id, $decided_at, $gate, $campaign_id, $run_id, $outcome, $reason, $sentence,
        $inputs, $details, $decision_key);
