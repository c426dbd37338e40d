-- in: sacct_rows   params: $bound (TIMESTAMPTZ, NULL for none)
-- out: the earliest start time of the landed lines that started before $bound (of every line
--      when NULL): NULL when none did. The earliest line overall is among them whenever one
--      is, so history.py passes the end of the first cached week, a constant DuckDB's zone
--      maps skip every later row group with, and reads again without a bound only when no
--      line started before it (min(start_time) over a table with this run's new lines, not yet
--      checkpointed, read the whole column: 0.03-0.05 CPU-s at 26 weeks × 200,000 lines).
SELECT min(start_time) FROM sacct_rows WHERE start_time < $bound OR $bound IS NULL;
