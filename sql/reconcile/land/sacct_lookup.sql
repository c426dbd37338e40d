-- in: sacct_strings, sacct_repaired, the variable sacct_split   params: none
-- out: temp table sacct_lookup(key_tres, key_state, key_exitcode, gpus, gpu_type,
--      alloc_mem_bytes, state, exit_status, exit_signal, gpu_problem): each DISTINCT
--      combination of the AllocTRES, State and ExitCode strings of the export (hundreds, not a million) parsed
--      once; the sacct_parsed view joins it back by the three strings, so a million lines are
--      not each cut apart with string functions (profiled: per row in the view, these fields
--      cost about 3 s per million lines). Rules, from sacct(1):
--      AllocTRES (or ReqTRES, when the export has no AllocTRES: i_gputres) is a comma list: gres/gpu=N and/or gres/gpu:TYPE=N (the untyped total wins
--      when both appear); mem=N[KMGTP] (no unit means MiB, as sacct prints);
--      State = NAME, "CANCELLED by <uid>", or NAME truncated to the column width with '+'
--      (taken when exactly one Slurm state starts with it); NULL when it is none of these;
--      ExitCode = status:signal.
--      A GPU count that is not a whole number, overflows, or falls outside
--      [min_gpus, max_gpus] gives gpu_problem (the line is quarantined), never 0 GPUs.
CREATE OR REPLACE TEMP TABLE sacct_lookup AS
WITH strings AS (
    -- Over-long lines are taken in their repaired form only.
    SELECT tres, state_raw, exitcode FROM sacct_strings WHERE odd_lineno IS NULL
    UNION
    SELECT coalesce(parts[getvariable('sacct_split').i_gputres], ''),
           coalesce(parts[getvariable('sacct_split').i_state], ''),
           coalesce(parts[getvariable('sacct_split').i_exitcode], '')
    FROM sacct_repaired
), fields AS (
    -- Cut a field's value (after "gres/gpu=", at the start or after a comma) up to the next
    -- comma; '' when the field is absent.
    SELECT tres, state_raw, exitcode,
           CASE WHEN starts_with(tres, 'gres/gpu=')
                THEN split_part(substr(tres, 10, 24), ',', 1)
                WHEN contains(tres, ',gres/gpu=')
                THEN split_part(substr(tres, instr(tres, ',gres/gpu=') + 10, 24), ',', 1)
                ELSE '' END AS gpu_field,
           CASE WHEN starts_with(tres, 'gres/gpu:')
                THEN split_part(substr(tres, 10, 64), ',', 1)
                WHEN contains(tres, ',gres/gpu:')
                THEN split_part(substr(tres, instr(tres, ',gres/gpu:') + 10, 64), ',', 1)
                ELSE '' END AS kind_field,
           CASE WHEN starts_with(tres, 'mem=')
                THEN split_part(substr(tres, 5, 24), ',', 1)
                WHEN contains(tres, ',mem=')
                THEN split_part(substr(tres, instr(tres, ',mem=') + 5, 24), ',', 1)
                ELSE '' END AS mem_field
    FROM strings
), typed AS (
    SELECT tres, state_raw, exitcode, kind_field, gpu_field,
           trim(state_raw) AS state_t,
           rtrim(split_part(trim(state_raw), ' ', 1), '+') AS state_word,
           getvariable('sacct_split').states AS states,
           CASE WHEN regexp_full_match(trim(gpu_field), '-?\d{1,18}')
                THEN CAST(trim(gpu_field) AS BIGINT) END AS gpus_untyped,
           -- Typed counts (gres/gpu:TYPE=N) only count when no untyped total is given.
           CASE WHEN kind_field <> '' AND gpu_field = ''
                THEN regexp_extract_all(tres, '(?:^|,)gres/gpu:[^=,]+=([^,]*)', 1)
           END AS typed_texts,
           CASE WHEN contains(kind_field, '=') THEN nullif(split_part(kind_field, '=', 1), '')
           END AS gpu_kind,
           rtrim(mem_field, 'KMGTP') AS mem_value,
           CASE WHEN mem_field = rtrim(mem_field, 'KMGTP') THEN 1048576
                ELSE CASE right(mem_field, 1) WHEN 'K' THEN 1024 WHEN 'M' THEN 1048576
                     WHEN 'G' THEN 1073741824 WHEN 'T' THEN 1099511627776
                     ELSE 1125899906842624 END
           END AS mem_unit_bytes
    FROM fields
), counted AS (
    SELECT t.*,
           CASE WHEN gpu_field <> '' THEN gpus_untyped
                WHEN typed_texts IS NOT NULL
                THEN list_sum(list_transform(typed_texts, lambda v:
                    CASE WHEN regexp_full_match(trim(v), '-?\d{1,18}')
                         THEN CAST(trim(v) AS HUGEINT) END))
                ELSE 0 END AS gpu_count,
           -- The first GPU text that does not read as a whole number, if any.
           CASE WHEN gpu_field <> '' AND gpus_untyped IS NULL THEN gpu_field
                WHEN typed_texts IS NOT NULL THEN list_filter(typed_texts,
                    lambda v: NOT regexp_full_match(trim(v), '-?\d{1,18}'))[1]
           END AS gpu_unread
    FROM typed t
)
SELECT tres AS key_tres, state_raw AS key_state, exitcode AS key_exitcode,
       CASE WHEN gpu_count BETWEEN getvariable('sacct_split').min_gpus
                               AND getvariable('sacct_split').max_gpus
            THEN CAST(gpu_count AS INTEGER) END AS gpus,
       CASE WHEN gpu_unread IS NOT NULL
            THEN concat('AllocTRES: gres/gpu is not a whole number: "', gpu_unread, '"')
            WHEN gpu_count NOT BETWEEN getvariable('sacct_split').min_gpus
                                   AND getvariable('sacct_split').max_gpus
            THEN concat('AllocTRES: gres/gpu must be from ', getvariable('sacct_split').min_gpus,
                        ' to ', getvariable('sacct_split').max_gpus, ' GPUs, found ', gpu_count)
       END AS gpu_problem,
       gpu_kind AS gpu_type,
       -- Whole numbers (the usual case) multiply as integers; fractions go through DECIMAL.
       CASE WHEN contains(mem_value, '.')
            THEN CAST(TRY_CAST(mem_value AS DECIMAL(38, 6)) * mem_unit_bytes AS BIGINT)
            ELSE TRY_CAST(mem_value AS BIGINT) * mem_unit_bytes END AS alloc_mem_bytes,
       CASE WHEN list_contains(states, state_word) THEN state_word
            WHEN ends_with(state_t, '+')
                 AND len(list_filter(states, lambda x: starts_with(x, state_word))) = 1
            THEN list_filter(states, lambda x: starts_with(x, state_word))[1]
       END AS state,
       TRY_CAST(split_part(exitcode, ':', 1) AS INTEGER) AS exit_status,
       TRY_CAST(split_part(exitcode, ':', 2) AS INTEGER) AS exit_signal
FROM counted;
