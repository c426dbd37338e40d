-- 017: gpu_usage keeps what an sacct line said its GPUs did, beside sacct_rows and keyed like
--   it (cluster, job id, step, submit time), with the line's provenance (source id and line;
--   the view sacct_records joins the rest back from sources). One row per landed line of an
--   export that has TRESUsageInTot, TRESUsageInAve or AdminComment and said something there;
--   an export without those columns writes nothing here. The figures are as Slurm and
--   jobstats printed them (the per-GPU normalisation is the review's: job_gpu_usage.sql):
--   util_tot / util_ave     gres/gpuutil of TRESUsageInTot / TRESUsageInAve, percent
--                           (a peak of watermarks; from Slurm 24.05.1 summed over the
--                           step's GPUs: doc/html/gres.shtml, CHANGELOG/slurm-24.05.md)
--   mem_tot_bytes / mem_ave_bytes   gres/gpumem of the same, in bytes (sacct prints 36266M:
--                           base-1024 units)
--   js_gpus                 jobstats' per-GPU summary (AdminComment "JS1:", base64 of gzipped
--                           JSON): GPUs counted, js_util_pct their mean gpu_utilization (NULL
--                           when the summary has none), js_gpus_used those above 0 %,
--                           js_mem_max_bytes the most gpu_used_memory of any GPU
--   flags                   e.g. 'jobstats-short' (jobstats wrote JS1:Short or JS1:None: no
--                           summary), 'tres-usage-unreadable' (a TRES value that is not a
--                           number: landed as NULL, the line's accounting kept)
-- Uniqueness without keys (DuckLake has none): a row is written only with the landing of
-- its line, for the lines that landed in sacct_rows, and re-landing a file is a no-op; a
-- line replaced by a later export leaves its row here unjoined (the review joins through
-- sacct_rows' source id and line).
CREATE TABLE gpu_usage (
    cluster           VARCHAR NOT NULL,
    job_id            VARCHAR NOT NULL,
    step              VARCHAR,
    submit_time       TIMESTAMPTZ,
    util_tot          DECIMAL(18, 6),
    util_ave          DECIMAL(18, 6),
    mem_tot_bytes     BIGINT,
    mem_ave_bytes     BIGINT,
    js_gpus           INTEGER,
    js_util_pct       DECIMAL(18, 6),
    js_gpus_used      INTEGER,
    js_mem_max_bytes  BIGINT,
    flags             VARCHAR[],
    source_id         BIGINT NOT NULL,
    source_line       BIGINT NOT NULL
);
