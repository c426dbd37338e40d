-- in: the run's MFU choice   params: $campaign_id, $run_id, $mfu, $mfu_source, $chosen_at
-- out: mfu_choices gets one row; the newest row of a campaign is the one in force
INSERT INTO mfu_choices VALUES ($campaign_id, $run_id, $mfu, $mfu_source, $chosen_at);
