-- in: goodput_stretches   params: none
-- out: temp view goodput_stretches_all (as goodput_stretches_all.sql) for a review that reads
--      no closed jobs' rows: goodput_stretches alone, without a scan of closed_stretches
CREATE OR REPLACE TEMP VIEW goodput_stretches_all AS SELECT * FROM goodput_stretches;
