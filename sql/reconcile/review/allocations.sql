-- in: allocation_records   params: none
-- out: temp table allocations: allocation_records with alloc_id numbering them in report
--      order (start, else submit time; then cluster, job id), so the jobs list sorts by one
--      integer, and their allocated GPU-seconds. The window runs on one thread, so it sorts
--      only the keys and the rowid, and the rows are joined back by rowid (0.46 s in all for
--      262,713 allocations, against 0.65 s for the window over whole rows).
CREATE OR REPLACE TEMP TABLE allocations AS
SELECT n.alloc_id, r.*, r.gpus * r.elapsed_seconds AS allocated_gpu_seconds
FROM allocation_records r
JOIN (SELECT rowid AS record,
             row_number() OVER (ORDER BY coalesce(start_time, submit_time), cluster, job_id,
                                         submit_time) AS alloc_id
      FROM allocation_records) n
  ON n.record = r.rowid;
