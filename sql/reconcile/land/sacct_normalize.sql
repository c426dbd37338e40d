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
--      times  = YYYY-MM-DDTHH:MM:SS in the cluster's zone, or None / Unknown; a local time
--      the zone repeats (clocks going back) or skips (going forward) is named in
--      time_flags, and Start / End are then placed by ElapsedRaw from the other end
--      (the CTEs zoned and readings; docs/reconcile.md, Local times);
--      time_flags also carries 'gpus-from-reqtres' on a row whose GPU count came from ReqTRES
--      (an export without AllocTRES); the review shows it among the job's flags;
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
           coalesce(parts[getvariable('sacct_split').i_gputres], '') AS tres,
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
                    + TRY_CAST(el.m AS BIGINT) * 60 + TRY_CAST(el.s AS BIGINT)
           END AS elapsed_s
    FROM typed t
), instants AS (
    -- Each local time's instant as DuckDB (ICU) reads it; UTC has no offset changes, so no
    -- work there.
    SELECT c.*,
           CASE WHEN tz = 'UTC' THEN to_timestamp(epoch(submit_ts))
                ELSE timezone(tz, submit_ts) END AS submit_i,
           CASE WHEN tz = 'UTC' THEN to_timestamp(epoch(start_ts))
                ELSE timezone(tz, start_ts) END AS start_i,
           CASE WHEN tz = 'UTC' THEN to_timestamp(epoch(end_ts))
                ELSE timezone(tz, end_ts) END AS end_i
    FROM counted c
), zoned AS (
    -- In epoch seconds, with the zone's UTC offsets (s) 3 h either side of the instant.
    SELECT i.*,
           epoch(submit_i) AS submit_u,
           epoch(start_i) AS start_u,
           epoch(end_i) AS end_u,
           CASE WHEN tz <> 'UTC' THEN
               [epoch(timezone(tz, submit_i - INTERVAL 3 HOUR)) - epoch(submit_i) + 10800,
                epoch(timezone(tz, submit_i + INTERVAL 3 HOUR)) - epoch(submit_i) - 10800]
           END AS submit_off,
           CASE WHEN tz <> 'UTC' THEN
               [epoch(timezone(tz, start_i - INTERVAL 3 HOUR)) - epoch(start_i) + 10800,
                epoch(timezone(tz, start_i + INTERVAL 3 HOUR)) - epoch(start_i) - 10800]
           END AS start_off,
           CASE WHEN tz <> 'UTC' THEN
               [epoch(timezone(tz, end_i - INTERVAL 3 HOUR)) - epoch(end_i) + 10800,
                epoch(timezone(tz, end_i + INTERVAL 3 HOUR)) - epoch(end_i) - 10800]
           END AS end_off
    FROM instants i
), readings AS (
    -- Near an offset change (the two offsets differ), a local time t is read with each
    -- offset o as the instant t - o, which is a reading when the zone's offset there is o:
    -- both read = ambiguous (its readings *_early, *_late), neither = non-existent.
    SELECT z.*,
           list_transform(submit_off, lambda o: epoch(timezone(tz, to_timestamp(epoch(submit_ts) - o)))
                                            - epoch(submit_ts) = 0) AS submit_read,
           list_transform(start_off, lambda o: epoch(timezone(tz, to_timestamp(epoch(start_ts) - o)))
                                           - epoch(start_ts) = 0) AS start_read,
           list_transform(end_off, lambda o: epoch(timezone(tz, to_timestamp(epoch(end_ts) - o)))
                                         - epoch(end_ts) = 0) AS end_read
    FROM zoned z
), placed AS (
    SELECT r.*,
           CASE WHEN submit_off[1] <> submit_off[2] THEN
               CASE WHEN submit_read[1] AND submit_read[2] THEN 'ambiguous'
                    WHEN NOT (submit_read[1] OR submit_read[2]) THEN 'nonexistent' END
           END AS submit_note,
           CASE WHEN start_off[1] <> start_off[2] THEN
               CASE WHEN start_read[1] AND start_read[2] THEN 'ambiguous'
                    WHEN NOT (start_read[1] OR start_read[2]) THEN 'nonexistent' END
           END AS start_note,
           CASE WHEN end_off[1] <> end_off[2] THEN
               CASE WHEN end_read[1] AND end_read[2] THEN 'ambiguous'
                    WHEN NOT (end_read[1] OR end_read[2]) THEN 'nonexistent' END
           END AS end_note,
           epoch(start_ts) - list_max(start_off) AS start_early,
           epoch(start_ts) - list_min(start_off) AS start_late,
           epoch(end_ts) - list_max(end_off) AS end_early,
           epoch(end_ts) - list_min(end_off) AS end_late
    FROM readings r
), resolved AS (
    -- A flagged Start is End - ElapsedRaw when End is sound; when both are flagged, Start is
    -- the reading of it from which ElapsedRaw reaches a reading of End (else ICU's); a
    -- flagged End is then Start + ElapsedRaw. ElapsedRaw stays the job's elapsed throughout.
    SELECT p.*,
           CASE WHEN start_note IS NULL OR elapsed_s IS NULL OR end_u IS NULL THEN start_u
                WHEN end_note IS NULL THEN end_u - elapsed_s
                WHEN start_note = 'ambiguous'
                     AND start_early + elapsed_s IN (end_early, end_late) THEN start_early
                WHEN start_note = 'ambiguous'
                     AND start_late + elapsed_s IN (end_early, end_late) THEN start_late
                ELSE start_u END AS start_s
    FROM placed p
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
       to_timestamp(submit_u) AS submit_time,
       to_timestamp(start_s) AS start_time,
       to_timestamp(CASE WHEN end_note IS NOT NULL AND start_s IS NOT NULL
                              AND elapsed_s IS NOT NULL THEN start_s + elapsed_s
                         ELSE end_u END) AS end_time,
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
           -- Free text that lands is capped (limits.MAX_NAME_CHARS; slurmdbd keeps 255 bytes).
           WHEN length(jobname) > getvariable('sacct_split').max_text
               THEN concat('JobName: longer than ', getvariable('sacct_split').max_text,
                           ' characters (', length(jobname), ')')
           WHEN length(account) > getvariable('sacct_split').max_text
               THEN concat('Account: longer than ', getvariable('sacct_split').max_text,
                           ' characters (', length(account), ')')
           WHEN length(partition) > getvariable('sacct_split').max_text
               THEN concat('Partition: longer than ', getvariable('sacct_split').max_text,
                           ' characters (', length(partition), ')')
           WHEN el_raw < getvariable('sacct_split').min_elapsed
               THEN concat('ElapsedRaw: must be at least ', getvariable('sacct_split').min_elapsed,
                           ' seconds, found ', el_raw)
           -- Digits only: DuckDB's cast would also read 3600.5, 0x10 or 1_000. RE2's full
           -- match costs a third of ltrim(…, '0123456789') per row.
           WHEN coalesce(trim(elapsedraw), '') <> ''
                AND (el_raw IS NULL OR NOT regexp_full_match(trim(elapsedraw), '[0-9]+'))
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
           WHEN end_ts < start_ts AND start_note IS NULL AND end_note IS NULL
               THEN concat('End: "', "end", '" is before Start "', start, '"')
       END AS problem,
       nullif(list_filter([CASE WHEN submit_note IS NOT NULL THEN concat('submit-time-', submit_note) END,
                           CASE WHEN start_note IS NOT NULL THEN concat('start-time-', start_note) END,
                           CASE WHEN end_note IS NOT NULL THEN concat('end-time-', end_note) END,
                           -- GPUs read from ReqTRES (no AllocTRES column): 'gpus-from-reqtres'
                           CASE WHEN coalesce(r.gpus, 0) > 0
                                THEN getvariable('sacct_split').gpus_flag END],
                          lambda f: f IS NOT NULL), []) AS time_flags
FROM resolved c
-- AllocTRES, State and ExitCode parsed once per distinct combination (sacct_lookup); the
-- small side is the join's build.
LEFT JOIN sacct_lookup r
       ON r.key_tres = c.tres AND r.key_state = c.state_raw
      AND r.key_exitcode = coalesce(c.exitcode, '');
