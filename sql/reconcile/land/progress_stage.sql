-- in: one progress JSONL file   params: $path
-- out: temp table progress_stage: each non-blank line's event, typed, with `problem` (NULL
--      when the event is good, else the reason it is quarantined). Times must carry a zone.
CREATE OR REPLACE TEMP TABLE progress_stage AS
WITH lines AS (
    SELECT lineno, rtrim(line, chr(13)) AS line
    FROM (
        SELECT unnest(lines) AS line, generate_subscripts(lines, 1) AS lineno
        FROM (SELECT string_split(content, chr(10)) AS lines FROM read_text($path))
    )
    -- Blank means JSON's own whitespace only (RFC 8259: space, tab, CR); any other line is
    -- a line, and one that is not a JSON object is quarantined.
    WHERE trim(line, ' ' || chr(9) || chr(13)) <> ''
), docs AS (
    SELECT lineno, line, TRY_CAST(line AS JSON) AS doc FROM lines
), keys AS (
    -- Each document parsed once for all its keys: `doc ->> 'key'` parses it again per key.
    SELECT lineno, line, doc, json_type(doc) = 'OBJECT' AS is_object,
           json_extract_string(doc, ['job_id', 'event', 'time', 'step', 'resumed_from_step',
                                     'accepted']) AS v
    FROM docs
), fields AS (
    SELECT lineno, line, doc, is_object,
           trim(v[1]) AS job_id,
           lower(trim(v[2])) AS event,
           v[2] AS event_raw,
           trim(v[3]) AS time_text,
           TRY_CAST(trim(v[3]) AS TIMESTAMPTZ) AS event_time,
           v[4] AS step_text,
           TRY_CAST(v[4] AS BIGINT) AS step,
           v[5] AS resumed_text,
           TRY_CAST(v[5] AS BIGINT) AS resumed,
           v[6] AS accepted_text,
           TRY_CAST(v[6] AS BOOLEAN) AS accepted
    FROM keys
)
SELECT lineno, line AS raw, job_id, event, event_time, step,
       CASE WHEN event = 'start' THEN coalesce(resumed, 0) END AS resumed_from_step,
       CASE WHEN event = 'checkpoint' THEN coalesce(accepted, false) END AS accepted,
       CASE
           WHEN doc IS NULL OR NOT is_object THEN 'not a JSON object'
           WHEN coalesce(job_id, '') = '' THEN 'job_id: required, but missing'
           WHEN event IS NULL OR event NOT IN ('start', 'step', 'checkpoint', 'end')
               THEN concat('event: must be one of start, step, checkpoint, end, got ',
                           coalesce(event_raw, 'nothing'))
           WHEN coalesce(time_text, '') = '' THEN 'time: required, but missing'
           WHEN NOT regexp_matches(time_text, '(Z|z|[+-]\d\d(:?\d\d)?)$')
               THEN concat('time: ', time_text, ' has no zone (add +00:00 or Z)')
           WHEN event_time IS NULL THEN concat('time: expected an ISO-8601 time, got ', time_text)
           WHEN event IN ('step', 'checkpoint') AND (step IS NULL OR step < 0)
               THEN concat('step: expected a non-negative integer, got ',
                           coalesce(step_text, 'nothing'))
           WHEN resumed_text IS NOT NULL AND (resumed IS NULL OR resumed < 0)
               THEN concat('resumed_from_step: expected a non-negative integer, got ', resumed_text)
           WHEN accepted_text IS NOT NULL AND accepted IS NULL
               THEN concat('accepted: expected true or false, got ', accepted_text)
       END AS problem
FROM fields;
