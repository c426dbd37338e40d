-- in: decisions   params: $campaign_id (NULL = all), $gate (NULL = all), $limit
-- out: every column of the matching decisions, oldest first (the last $limit of them)
SELECT decision_id, decided_at, gate, campaign_id, run_id, outcome, reason, sentence,
       inputs, details
FROM (
    SELECT *
    FROM decisions
    WHERE ($campaign_id IS NULL OR campaign_id = $campaign_id)
      AND ($gate IS NULL OR gate = $gate)
    ORDER BY decision_id DESC
    LIMIT $limit
)
ORDER BY decision_id;
