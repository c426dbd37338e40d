-- in: decisions   params: $decision_key   out: decision_id of the decision with that content key
SELECT decision_id FROM decisions WHERE decision_key = $decision_key;
