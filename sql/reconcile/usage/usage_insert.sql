-- in: usage_lines, usage_jobstats, sacct_rows   params: $source_id (the landing in progress)
-- out: (one gpu_usage row per staged line, keyed like its sacct_rows line) and the count.
--      TRES strings are sacct's `name=value` list (doc/html/tres.shtml); gres/gpuutil is a
--      percent, gres/gpumem a size sacct prints with a base-1024 unit (36266M; a bare number
--      is bytes). A value there that does not read lands NULL, flagged
--      'tres-usage-unreadable'. Sizes are exact: the digits times 1024^k, rounded half up to
--      a byte only when sacct printed a fraction.
INSERT INTO gpu_usage
WITH found AS (
    -- Where each `name=` starts (0: absent), found with instr on ',' || the list: string
    -- functions, not a regular expression per field (a third of the cost on 62k lines).
    SELECT u.source_line, u.tot, u.ave,
           instr(',' || u.tot, ',gres/gpuutil=') AS at_util_tot,
           instr(',' || u.ave, ',gres/gpuutil=') AS at_util_ave,
           instr(',' || u.tot, ',gres/gpumem=') AS at_mem_tot,
           instr(',' || u.ave, ',gres/gpumem=') AS at_mem_ave
    FROM usage_lines u
), parsed AS (
    -- The value after the first `name=`, up to the next comma ('' when absent).
    SELECT source_line,
           CASE WHEN at_util_tot > 0 THEN split_part(substr(tot, at_util_tot + 13), ',', 1)
                ELSE '' END AS util_tot_t,
           CASE WHEN at_util_ave > 0 THEN split_part(substr(ave, at_util_ave + 13), ',', 1)
                ELSE '' END AS util_ave_t,
           CASE WHEN at_mem_tot > 0 THEN split_part(substr(tot, at_mem_tot + 12), ',', 1)
                ELSE '' END AS mem_tot_t,
           CASE WHEN at_mem_ave > 0 THEN split_part(substr(ave, at_mem_ave + 12), ',', 1)
                ELSE '' END AS mem_ave_t
    FROM found
), typed AS (
    SELECT p.*,
           CASE WHEN regexp_full_match(util_tot_t, '[0-9]+(\.[0-9]+)?')
                THEN TRY_CAST(util_tot_t AS DECIMAL(18, 6)) END AS util_tot,
           CASE WHEN regexp_full_match(util_ave_t, '[0-9]+(\.[0-9]+)?')
                THEN TRY_CAST(util_ave_t AS DECIMAL(18, 6)) END AS util_ave,
           regexp_extract(mem_tot_t, '^([0-9]+(?:\.[0-9]+)?)([KMGTPE]?)$', ['n', 'u'])
               AS mem_tot_p,
           regexp_extract(mem_ave_t, '^([0-9]+(?:\.[0-9]+)?)([KMGTPE]?)$', ['n', 'u'])
               AS mem_ave_p
    FROM parsed p
), scaled AS (
    -- A whole number of units (what sacct prints) is its digits times 1024^k in integers;
    -- a fraction, or more than 12 digits, takes the DECIMAL(38, 6) way below (rounded).
    SELECT t.*,
           CASE WHEN length(mem_tot_p.n) BETWEEN 1 AND 12 AND NOT contains(mem_tot_p.n, '.')
                THEN TRY_CAST(mem_tot_p.n AS HUGEINT)
                     * [1, 1024, 1048576, 1073741824, 1099511627776, 1125899906842624,
                        1152921504606846976][coalesce(list_position(['K', 'M', 'G', 'T', 'P', 'E'],
                                                                    mem_tot_p.u), 0) + 1]
           END AS mem_tot_i,
           CASE WHEN length(mem_ave_p.n) BETWEEN 1 AND 12 AND NOT contains(mem_ave_p.n, '.')
                THEN TRY_CAST(mem_ave_p.n AS HUGEINT)
                     * [1, 1024, 1048576, 1073741824, 1099511627776, 1125899906842624,
                        1152921504606846976][coalesce(list_position(['K', 'M', 'G', 'T', 'P', 'E'],
                                                                    mem_ave_p.u), 0) + 1]
           END AS mem_ave_i
    FROM typed t
), sized AS (
    SELECT t.*,
           CASE WHEN mem_tot_i < 9223372036854775808 THEN CAST(mem_tot_i AS BIGINT)
                WHEN mem_tot_p.n <> '' THEN CAST(round(TRY_CAST(mem_tot_p.n AS DECIMAL(38, 6))
                * CAST(pow(1024, coalesce(list_position(['K', 'M', 'G', 'T', 'P', 'E'],
                                                   mem_tot_p.u), 0)) AS DECIMAL(38, 0)), 0) AS BIGINT)
           END AS mem_tot_bytes,
           CASE WHEN mem_ave_i < 9223372036854775808 THEN CAST(mem_ave_i AS BIGINT)
                WHEN mem_ave_p.n <> '' THEN CAST(round(TRY_CAST(mem_ave_p.n AS DECIMAL(38, 6))
                * CAST(pow(1024, coalesce(list_position(['K', 'M', 'G', 'T', 'P', 'E'],
                                                   mem_ave_p.u), 0)) AS DECIMAL(38, 0)), 0) AS BIGINT)
           END AS mem_ave_bytes
    FROM scaled t
)
SELECT r.cluster, r.job_id, r.step, r.submit_time,
       s.util_tot, s.util_ave, s.mem_tot_bytes, s.mem_ave_bytes,
       j.js_gpus, j.js_util_pct, j.js_gpus_used, j.js_mem_max_bytes,
       nullif(list_filter([
           CASE WHEN (util_tot_t <> '' AND util_tot IS NULL) OR (util_ave_t <> '' AND util_ave IS NULL)
                     OR (mem_tot_t <> '' AND mem_tot_bytes IS NULL)
                     OR (mem_ave_t <> '' AND mem_ave_bytes IS NULL)
                THEN 'tres-usage-unreadable' END,
           j.js_flag], lambda f: f IS NOT NULL), []) AS flags,
       r.source_id, r.source_line
FROM sized s
-- The landed lines among the staged ones: a semi join on the staged lines first, so the
-- million landed rows are probed, not hashed.
JOIN (SELECT * FROM sacct_rows
      WHERE source_id = $source_id
        AND source_line IN (SELECT source_line FROM usage_lines)) r
  ON r.source_line = s.source_line
LEFT JOIN usage_jobstats j ON j.source_line = s.source_line
WHERE s.util_tot IS NOT NULL OR s.util_ave IS NOT NULL OR s.mem_tot_bytes IS NOT NULL
   OR s.mem_ave_bytes IS NOT NULL OR j.source_line IS NOT NULL
   OR util_tot_t <> '' OR util_ave_t <> '' OR mem_tot_t <> '' OR mem_ave_t <> '';
