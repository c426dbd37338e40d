-- in: quarantine   params: $source_id   out: the number of rows quarantined from that source
SELECT count(*) FROM quarantine WHERE source_id = $source_id;
