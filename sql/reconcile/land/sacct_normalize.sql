-- in: sacct_lines (numbered lines), sacct_strings (which lines are over-long),
--     sacct_repaired (those rejoined), the variable sacct_split   params: none
-- out: temp VIEW sacct_parsed: typed, normalised rows with `problem` (NULL when the row is
--      good, else the reason it goes to quarantine). A view, not a table: the good rows go
--      straight into sacct_rows (sacct_insert), so a million parsed rows are stored once; it
--      is read again (sacct_rejected, only the columns `problem` needs) only when some line
--      did not land. Parsing rules, from sacct(1):
--      JobID  = base[_arraytask][+hetoffset][.step]; JobIDRaw may differ for array tasks;
--      Elapsed = [DD-[HH:]]MM:SS (ElapsedRaw, in seconds, wins when present);
--      ElapsedRaw is digits only and at least min_elapsed; End is not before Start; the GPU
--      count is checked in sacct_lookup (bounds from quality.rules.SACCT_ROWS);
--      times  = YYYY-MM-DDTHH:MM:SS in the cluster's zone, or None / Unknown;
--      AllocTRES, State and ExitCode: parsed once per distinct combination in sacct_lookup
--      (see there for their rules) and joined back, with the small table as the hash build.
-- The other fields are parsed per row with string functions (a regular expression only where
-- a string function cannot say it, and only on the rows that need it). No million-row
-- materialised stage is joined back (an earlier version did, hashed the large side and
-- spilled to disk).
CREATE OR REPLACE TEMP VIEW sacct_parsed AS
WITH split AS (
    -- Each line split once. Lines without the header's field count were found by
    -- sacct_strings and left to Python; they come back rejoined in sacct_repaired.
    -- Excluding them by number, not by len(parts), keeps DuckDB from pushing a second
    -- string_split into the scan's filter.
    SELECT lineno, string_split(line, getvariable('sacct_split').delim) AS parts
    FROM sacct_lines
    WHERE lineno >= getvariable('sacct_split').first_data_line
      AND lineno NOT IN (SELECT odd_lineno FROM sacct_strings
                         WHERE odd_lineno IS NOT NULL)
    UNION ALL
    SELECT lineno, parts FROM sacct_repaired
), stage AS (
    SELECT lineno,
           parts[getvariable('sacct_split').i_jobid] AS jobid,
           parts[getvariable('sacct_split').i_jobidraw] AS jobidraw,
           parts[getvariable('sacct_split').i_jobname] AS jobname,
           parts[getvariable('sacct_split').i_account] AS account,
           parts[getvariable('sacct_split').i_partition] AS partition,
           trim(coalesce(parts[getvariable('sacct_split').i_state], '')) AS state_t,
           coalesce(parts[getvariable('sacct_split').i_state], '') AS state_raw,
           parts[getvariable('sacct_split').i_exitcode] AS exitcode,
           parts[getvariable('sacct_split').i_elapsed] AS elapsed,
           parts[getvariable('sacct_split').i_elapsedraw] AS elapsedraw,
           parts[getvariable('sacct_split').i_submit] AS submit,
           parts[getvariable('sacct_split').i_start] AS start,
           parts[getvariable('sacct_split').i_end] AS "end",
           coalesce(parts[getvariable('sacct_split').i_alloctres], '') AS tres,
           parts[getvariable('sacct_split').i_alloctres] AS alloctres,
           parts[getvariable('sacct_split').i_reqtres] AS reqtres,
           parts[getvariable('sacct_split').i_nnodes] AS nnodes,
           parts[getvariable('sacct_split').i_alloccpus] AS alloccpus,
           parts[getvariable('sacct_split').i_cluster] AS cluster,
           getvariable('sacct_split').cluster AS default_cluster,
           getvariable('sacct_split').tz AS tz
    FROM split
), base AS (
    SELECT s.*,
           regexp_full_match(jobid,
               '\d+(?:_(?:\d+|\[[^\]]*\]))?(?:\+\d+)?(?:\.[A-Za-z0-9_-]+)?') AS id_ok,
           -- instr/substr rather than split_part, which builds a list per call.
           CASE WHEN contains(jobid, '.') THEN substr(jobid, 1, instr(jobid, '.') - 1)
                ELSE jobid END AS alloc_jid,
           CASE WHEN contains(jobid, '.') THEN nullif(substr(jobid, instr(jobid, '.') + 1), '')
           END AS step_part,
           TRY_CAST(trim(elapsedraw) AS BIGINT) AS el_raw,
           CASE WHEN coalesce(submit, '') IN ('', 'None', 'Unknown') THEN NULL
                ELSE TRY_CAST(submit AS TIMESTAMP) END AS submit_ts,
           CASE WHEN coalesce(start, '') IN ('', 'None', 'Unknown') THEN NULL
                ELSE TRY_CAST(start AS TIMESTAMP) END AS start_ts,
           CASE WHEN coalesce("end", '') IN ('', 'None', 'Unknown') THEN NULL
                ELSE TRY_CAST("end" AS TIMESTAMP) END AS end_ts
    FROM stage s
), typed AS (
    SELECT b.*,
           -- Elapsed text is parsed only where ElapsedRaw is absent.
           CASE WHEN el_raw IS NULL THEN
               regexp_extract(trim(coalesce(elapsed, '')),
                              '^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$',
                              ['d', 'h', 'm', 's']) END AS el
    FROM base b
), counted AS (
    SELECT t.*,
           CASE WHEN el_raw IS NOT NULL THEN el_raw
                WHEN el.s <> '' THEN
                    coalesce(TRY_CAST(nullif(el.d, '') AS BIGINT), 0) * 86400
                    + coalesce(TRY_CAST(nullif(el.h, '') AS BIGINT), 0) * 3600
                    + CAST(el.m AS BIGINT) * 60 + CAST(el.s AS BIGINT)
           END AS elapsed_s
    FROM typed t
)
SELECT lineno,
       coalesce(nullif(trim(cluster), ''), default_cluster) AS cluster,
       CASE WHEN id_ok THEN alloc_jid END AS job_id,
       step_part AS step,
       coalesce(nullif(split_part(split_part(trim(coalesce(jobidraw, '')), '.', 1), '+', 1), ''),
                alloc_jid) AS job_id_raw,
       jobname AS name,
       nullif(account, '') AS account,
       nullif(partition, '') AS partition,
       r.state,
       state_t AS state_text,
       r.exit_status,
       r.exit_signal,
       elapsed_s AS elapsed_seconds,
       coalesce(elapsed, elapsedraw) AS elapsed_text,
       CASE WHEN tz = 'UTC' THEN to_timestamp(epoch(submit_ts))
            ELSE timezone(tz, submit_ts) END AS submit_time,
       CASE WHEN tz = 'UTC' THEN to_timestamp(epoch(start_ts))
            ELSE timezone(tz, start_ts) END AS start_time,
       CASE WHEN tz = 'UTC' THEN to_timestamp(epoch(end_ts))
            ELSE timezone(tz, end_ts) END AS end_time,
       coalesce(r.gpus, 0) AS gpus,
       r.gpu_type,
       r.alloc_mem_bytes,
       TRY_CAST(alloccpus AS INTEGER) AS alloc_cpus,
       TRY_CAST(nnodes AS INTEGER) AS nnodes,
       nullif(alloctres, '') AS alloc_tres,
       nullif(reqtres, '') AS req_tres,
       CASE
           WHEN NOT id_ok THEN concat('JobID: not a Slurm job id: "', jobid, '"')
           WHEN r.state IS NULL THEN concat('State: not a Slurm state: "', state_raw, '"')
           WHEN el_raw < getvariable('sacct_split').min_elapsed
               THEN concat('ElapsedRaw: must be at least ', getvariable('sacct_split').min_elapsed,
                           ' seconds, found ', el_raw)
           -- Digits only: DuckDB's cast would also read 3600.5, 0x10 or 1_000.
           WHEN coalesce(trim(elapsedraw), '') <> ''
                AND (el_raw IS NULL OR ltrim(trim(elapsedraw), '0123456789') <> '')
               THEN concat('ElapsedRaw: not a whole number of seconds: "', elapsedraw, '"')
           WHEN elapsed_s IS NULL
               THEN concat('Elapsed: expected [DD-[HH:]]MM:SS or ElapsedRaw seconds, got "',
                           coalesce(elapsed, elapsedraw, ''), '"')
           WHEN submit_ts IS NULL AND coalesce(submit, '') NOT IN ('', 'None', 'Unknown')
               THEN concat('Submit: not a time: "', submit, '"')
           WHEN start_ts IS NULL AND coalesce(start, '') NOT IN ('', 'None', 'Unknown')
               THEN concat('Start: not a time: "', start, '"')
           WHEN end_ts IS NULL AND coalesce("end", '') NOT IN ('', 'None', 'Unknown')
               THEN concat('End: not a time: "', "end", '"')
           WHEN r.gpu_problem IS NOT NULL THEN r.gpu_problem
           WHEN end_ts < start_ts
               THEN concat('End: "', "end", '" is before Start "', start, '"')
       END AS problem
FROM counted c
-- AllocTRES, State and ExitCode parsed once per distinct combination (sacct_lookup); the
-- small side is the join's build.
LEFT JOIN sacct_lookup r
       ON r.key_tres = c.tres AND r.key_state = c.state_raw
      AND r.key_exitcode = coalesce(c.exitcode, '');
