-- in: params $lines, $gpus, $utils (decimal text), $used, $mems, $flags (parallel lists: one
--     decoded JS1 summary per line, gpu_usage.land_gpu_usage)
-- out: temp table usage_jobstats(source_line, js_gpus, js_util_pct, js_gpus_used,
--      js_mem_max_bytes, js_flag)
CREATE OR REPLACE TEMP TABLE usage_jobstats AS
SELECT CAST(unnest($lines) AS BIGINT) AS source_line,
       CAST(unnest($gpus) AS INTEGER) AS js_gpus,
       CAST(unnest($utils) AS DECIMAL(18, 6)) AS js_util_pct,
       CAST(unnest($used) AS INTEGER) AS js_gpus_used,
       CAST(unnest($mems) AS BIGINT) AS js_mem_max_bytes,
       CAST(unnest($flags) AS VARCHAR) AS js_flag;
