-- in: params $first_data_line, $field_count, $delim, one 1-based field position per column
--     read ($i_jobid, ...; NULL when the export lacks that field), $i_gputres (the field the
--     GPU count is read from: AllocTRES, or ReqTRES when the export has no AllocTRES),
--     $gpus_flag (the flag such a fallback puts on a row with GPUs, else NULL), $cluster (default cluster
--     name), $tz (zone sacct printed its times in), $states (every Slurm state name),
--     $min_gpus, $max_gpus, $min_elapsed (the bounds of quality.rules.SACCT_ROWS),
--     $max_text (the most characters of JobName, Account, Partition: limits.MAX_NAME_CHARS)
-- out: the variable sacct_split, a struct of those parameters read by the sacct_parsed view
--      (a view cannot hold prepared parameters; getvariable() is folded to a constant when
--      the view is bound, so the split and the lookups stay constant-argument calls)
SET VARIABLE sacct_split = {
    'first_data_line': CAST($first_data_line AS BIGINT),
    'field_count': CAST($field_count AS BIGINT),
    'delim': CAST($delim AS VARCHAR),
    'i_jobid': CAST($i_jobid AS INTEGER),
    'i_jobidraw': CAST($i_jobidraw AS INTEGER),
    'i_jobname': CAST($i_jobname AS INTEGER),
    'i_account': CAST($i_account AS INTEGER),
    'i_partition': CAST($i_partition AS INTEGER),
    'i_state': CAST($i_state AS INTEGER),
    'i_exitcode': CAST($i_exitcode AS INTEGER),
    'i_elapsed': CAST($i_elapsed AS INTEGER),
    'i_elapsedraw': CAST($i_elapsedraw AS INTEGER),
    'i_submit': CAST($i_submit AS INTEGER),
    'i_start': CAST($i_start AS INTEGER),
    'i_end': CAST($i_end AS INTEGER),
    'i_alloctres': CAST($i_alloctres AS INTEGER),
    'i_reqtres': CAST($i_reqtres AS INTEGER),
    'i_nnodes': CAST($i_nnodes AS INTEGER),
    'i_alloccpus': CAST($i_alloccpus AS INTEGER),
    'i_cluster': CAST($i_cluster AS INTEGER),
    'i_gputres': CAST($i_gputres AS INTEGER),
    'gpus_flag': CAST($gpus_flag AS VARCHAR),
    'cluster': CAST($cluster AS VARCHAR),
    'tz': CAST($tz AS VARCHAR),
    'states': CAST($states AS VARCHAR[]),
    'min_gpus': CAST($min_gpus AS BIGINT),
    'max_gpus': CAST($max_gpus AS BIGINT),
    'min_elapsed': CAST($min_elapsed AS BIGINT),
    'max_text': CAST($max_text AS BIGINT)
};
