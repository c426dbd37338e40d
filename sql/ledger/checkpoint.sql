-- in: the ledger   params: none
-- out: (writes what the committed transactions changed into the data file and empties the WAL)
CHECKPOINT;
