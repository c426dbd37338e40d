-- in: measured_writes (measured_writes.sql)   params: none
-- out: job_id, t, write_s: every measured checkpoint write, in time order
SELECT job_id, t, write_s FROM measured_writes ORDER BY t, job_id, write_s;
