-- in: the run's MFU choice   params: $campaign_id, $run_id, $mfu, $mfu_source, $chosen_at
-- out: mfu_choices gets one row (a re-run of the same run replaces its row)
DELETE FROM mfu_choices WHERE campaign_id = $campaign_id AND run_id = $run_id;
INSERT INTO mfu_choices VALUES ($campaign_id, $run_id, $mfu, $mfu_source, $chosen_at);
