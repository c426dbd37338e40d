-- in: sacct_lines (numbered lines), sacct_repaired (over-long lines rejoined)
-- params: $first_data_line, $field_count, $delim, one 1-based field position per column read
--     ($i_jobid, ...; NULL when the export lacks that field), $cluster (default cluster name),
--     $tz (zone sacct printed its times in), $states (every Slurm state name)
-- out: temp table sacct_parsed: typed, normalised rows with `problem` (NULL when the row is
--      good, else the reason it goes to quarantine). Parsing rules, from sacct(1):
--      JobID  = base[_arraytask][+hetoffset][.step]; JobIDRaw may differ for array tasks;
--      State  = NAME, "CANCELLED by <uid>", or NAME truncated to the column width with '+';
--      Elapsed = [DD-[HH:]]MM:SS (ElapsedRaw, in seconds, wins when present);
--      times  = YYYY-MM-DDTHH:MM:SS in the cluster's zone, or None / Unknown;
--      AllocTRES gres/gpu=N and/or gres/gpu:TYPE=N (the untyped total wins when both appear).
CREATE OR REPLACE TEMP TABLE sacct_parsed AS
WITH split AS (
    -- Lines with the header's field count, split once; plus the repaired over-long lines.
    SELECT lineno, string_split(line, $delim) AS parts
    FROM sacct_lines
    WHERE lineno >= $first_data_line
      AND (length(line) - length(replace(line, $delim, '')))
          = ($field_count - 1) * length($delim)
    UNION ALL
    SELECT lineno, parts FROM sacct_repaired
), sacct_stage AS MATERIALIZED (
    SELECT lineno,
           parts[$i_jobid] AS jobid,
           parts[$i_jobidraw] AS jobidraw,
           parts[$i_jobname] AS jobname,
           parts[$i_account] AS account,
           parts[$i_partition] AS partition,
           parts[$i_state] AS state,
           parts[$i_exitcode] AS exitcode,
           parts[$i_elapsed] AS elapsed,
           parts[$i_elapsedraw] AS elapsedraw,
           parts[$i_submit] AS submit,
           parts[$i_start] AS start,
           parts[$i_end] AS "end",
           parts[$i_alloctres] AS alloctres,
           parts[$i_reqtres] AS reqtres,
           parts[$i_nnodes] AS nnodes,
           parts[$i_alloccpus] AS alloccpus,
           parts[$i_cluster] AS cluster
    FROM split
), tres_values AS (
    -- AllocTRES, State and ExitCode repeat across rows (a few hundred distinct values in a
    -- million lines): parse each distinct value once and join it back.
    SELECT tres,
           CASE WHEN contains(tres, 'gres/gpu=')
                THEN TRY_CAST(regexp_extract(tres, '(?:^|,)gres/gpu=(\d+)', 1) AS INTEGER)
           END AS gpus_untyped,
           CASE WHEN contains(tres, 'gres/gpu:') THEN list_sum(list_transform(
               regexp_extract_all(tres, '(?:^|,)gres/gpu:[^=,]+=(\d+)', 1),
               lambda v: CAST(v AS INTEGER))) END AS gpus_typed,
           CASE WHEN contains(tres, 'gres/gpu:')
                THEN nullif(regexp_extract(tres, '(?:^|,)gres/gpu:([^=,]+)=', 1), '')
           END AS gpu_kind,
           CASE WHEN contains(tres, 'mem=')
                THEN regexp_extract(tres, '(?:^|,)mem=([0-9.]+)([KMGTP]?)', ['v', 'u'])
           END AS mem
    FROM (SELECT DISTINCT coalesce(alloctres, '') AS tres FROM sacct_stage)
), state_values AS (
    SELECT state_key,
           CASE WHEN list_contains($states, state_word) THEN state_word
                WHEN state_truncated
                     AND len(list_filter($states, lambda x: starts_with(x, state_word))) = 1
                THEN list_filter($states, lambda x: starts_with(x, state_word))[1]
           END AS state_norm,
           CASE WHEN contains(state_key, ' by ') THEN split_part(trim(state_key), ' by ', 2) END
               AS cancelled_by
    FROM (
        SELECT state_key,
               rtrim(split_part(trim(state_key), ' ', 1), '+') AS state_word,
               ends_with(trim(state_key), '+') AS state_truncated
        FROM (SELECT DISTINCT coalesce(state, '') AS state_key FROM sacct_stage)
    )
), exit_values AS (
    SELECT exit_key,
           TRY_CAST(split_part(exit_key, ':', 1) AS INTEGER) AS exit_status,
           TRY_CAST(split_part(exit_key, ':', 2) AS INTEGER) AS exit_signal
    FROM (SELECT DISTINCT coalesce(exitcode, '') AS exit_key FROM sacct_stage)
), base AS (
    -- String functions where they suffice (much cheaper than regular expressions per row);
    -- one full-match regex validates the JobID shape.
    SELECT s.*, t.* EXCLUDE (tres), v.* EXCLUDE (state_key), x.* EXCLUDE (exit_key),
           regexp_full_match(jobid,
               '\d+(?:_(?:\d+|\[[^\]]*\]))?(?:\+\d+)?(?:\.[A-Za-z0-9_-]+)?') AS id_ok,
           split_part(jobid, '.', 1) AS alloc_jid,
           nullif(split_part(jobid, '.', 2), '') AS step_part,
           TRY_CAST(trim(elapsedraw) AS BIGINT) AS el_raw,
           -- Elapsed text is parsed only where ElapsedRaw is absent.
           CASE WHEN TRY_CAST(trim(elapsedraw) AS BIGINT) IS NULL THEN
               regexp_extract(trim(elapsed), '^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$',
                              ['d', 'h', 'm', 's']) END AS el,
           CASE WHEN TRY_CAST(trim(elapsedraw) AS BIGINT) IS NULL THEN
               regexp_full_match(trim(coalesce(elapsed, '')),
                                 '(?:\d+-)?(?:\d+:)?\d+:\d+(?:\.\d+)?') END AS el_ok
    FROM sacct_stage s
    JOIN tres_values t ON t.tres = coalesce(s.alloctres, '')
    JOIN state_values v ON v.state_key = coalesce(s.state, '')
    JOIN exit_values x ON x.exit_key = coalesce(s.exitcode, '')
), typed AS (
    SELECT b.*,
           CASE WHEN el_raw IS NOT NULL THEN el_raw
                WHEN el_ok THEN
                    coalesce(TRY_CAST(nullif(el.d, '') AS BIGINT), 0) * 86400
                    + coalesce(TRY_CAST(nullif(el.h, '') AS BIGINT), 0) * 3600
                    + CAST(el.m AS BIGINT) * 60 + CAST(el.s AS BIGINT)
           END AS elapsed_s,
           CASE WHEN coalesce(submit, '') IN ('', 'None', 'Unknown') THEN NULL
                ELSE TRY_CAST(submit AS TIMESTAMP) END AS submit_ts,
           CASE WHEN coalesce(start, '') IN ('', 'None', 'Unknown') THEN NULL
                ELSE TRY_CAST(start AS TIMESTAMP) END AS start_ts,
           CASE WHEN coalesce("end", '') IN ('', 'None', 'Unknown') THEN NULL
                ELSE TRY_CAST("end" AS TIMESTAMP) END AS end_ts
    FROM base b
)
SELECT lineno,
       coalesce(nullif(trim(cluster), ''), $cluster) AS cluster,
       CASE WHEN id_ok THEN alloc_jid END AS job_id,
       step_part AS step,
       coalesce(nullif(split_part(split_part(trim(coalesce(jobidraw, '')), '.', 1), '+', 1), ''),
                alloc_jid) AS job_id_raw,
       CASE WHEN contains(alloc_jid, '_') THEN split_part(alloc_jid, '_', 1) END AS array_job_id,
       CASE WHEN contains(alloc_jid, '_') THEN split_part(alloc_jid, '_', 2) END AS array_task,
       CASE WHEN contains(alloc_jid, '+') THEN split_part(alloc_jid, '+', 1) END AS het_job_id,
       CASE WHEN contains(alloc_jid, '+')
            THEN TRY_CAST(split_part(alloc_jid, '+', 2) AS INTEGER) END AS het_offset,
       jobname AS name,
       nullif(account, '') AS account,
       nullif(partition, '') AS partition,
       state_norm AS state,
       trim(coalesce(state, '')) AS state_text,
       cancelled_by,
       exit_status,
       exit_signal,
       elapsed_s AS elapsed_seconds,
       coalesce(elapsed, elapsedraw) AS elapsed_text,
       CASE WHEN $tz = 'UTC' THEN to_timestamp(epoch(submit_ts))
            ELSE timezone($tz, submit_ts) END AS submit_time,
       CASE WHEN $tz = 'UTC' THEN to_timestamp(epoch(start_ts))
            ELSE timezone($tz, start_ts) END AS start_time,
       CASE WHEN $tz = 'UTC' THEN to_timestamp(epoch(end_ts))
            ELSE timezone($tz, end_ts) END AS end_time,
       coalesce(gpus_untyped, gpus_typed, 0) AS gpus,
       gpu_kind AS gpu_type,
       CASE WHEN coalesce(mem.v, '') <> '' THEN CAST(CAST(mem.v AS DECIMAL(38, 6))
            * (CASE mem.u WHEN 'K' THEN 1024 WHEN 'M' THEN 1048576 WHEN 'G' THEN 1073741824
                          WHEN 'T' THEN 1099511627776 WHEN 'P' THEN 1125899906842624
                          ELSE 1048576 END) AS BIGINT) END AS alloc_mem_bytes,
       TRY_CAST(alloccpus AS INTEGER) AS alloc_cpus,
       TRY_CAST(nnodes AS INTEGER) AS nnodes,
       nullif(alloctres, '') AS alloc_tres,
       nullif(reqtres, '') AS req_tres,
       CASE
           WHEN NOT id_ok THEN concat('JobID: not a Slurm job id: "', jobid, '"')
           WHEN state_norm IS NULL THEN concat('State: not a Slurm state: "', state, '"')
           WHEN elapsed_s IS NULL
               THEN concat('Elapsed: expected [DD-[HH:]]MM:SS or ElapsedRaw seconds, got "',
                           coalesce(elapsed, elapsedraw, ''), '"')
           WHEN submit_ts IS NULL AND coalesce(submit, '') NOT IN ('', 'None', 'Unknown')
               THEN concat('Submit: not a time: "', submit, '"')
           WHEN start_ts IS NULL AND coalesce(start, '') NOT IN ('', 'None', 'Unknown')
               THEN concat('Start: not a time: "', start, '"')
           WHEN end_ts IS NULL AND coalesce("end", '') NOT IN ('', 'None', 'Unknown')
               THEN concat('End: not a time: "', "end", '"')
       END AS problem
FROM typed;
