-- in: sacct_rows   params: $bound (TIMESTAMPTZ, NULL for none)
-- out: the earliest start time of the landed lines that started before $bound (of every line
--      when NULL): NULL when none did. The earliest line overall is among them whenever one
--      is, so history.py passes the end of the first cached week, a constant DuckDB's zone
--      maps skip every later row group with, and reads again without a bound only when no
--      line started before it (the unbounded minimum took 0.04 CPU-s inside a weekly run at
--      26 weeks × 200,000 lines, the bounded one 0.006).
SELECT min(start_time) FROM sacct_rows WHERE start_time < $bound OR $bound IS NULL;
