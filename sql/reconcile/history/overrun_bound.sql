-- in: sacct_overruns   params: none
-- out: the most microseconds any landed line ran past its End (0 when none did): how much
--      earlier than a time t the End of a line that ran after t can be (reconcile/history.py)
SELECT coalesce(max(overrun_us), 0) FROM sacct_overruns;
