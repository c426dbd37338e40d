-- in: sacct_lines, sacct_strings, sacct_repaired (this landing's split)
-- params: $delim, $first_data_line, $i_tot, $i_ave,
--         $i_admin (1-based positions of TRESUsageInTot, TRESUsageInAve, AdminComment; NULL
--         when the export lacks one)
-- out: temp table usage_lines(source_line, tot, ave, admin): the usage fields of the lines
--      that name gres/gpuutil, gres/gpumem or JS1: somewhere (usage_insert keeps those that
--      landed in sacct_rows: a quarantined or duplicate line has none). Lines are split as
--      sacct_normalize splits them: the rejoined over-long ones come from sacct_repaired.
CREATE OR REPLACE TEMP TABLE usage_lines AS
WITH split AS (
    -- Only a line that names gres/gpuutil, gres/gpumem or a JS1 summary can say anything
    -- here: a substring test per line, before any split, so the other lines cost a memchr
    -- and no list (a line that names them elsewhere only passes on to the exact fields).
    SELECT lineno, string_split(line, $delim) AS parts
    FROM sacct_lines
    WHERE lineno >= $first_data_line
      AND (contains(line, 'gres/gpuutil') OR contains(line, 'gres/gpumem')
           OR contains(line, 'JS1:'))
      AND lineno NOT IN (SELECT odd_lineno FROM sacct_strings WHERE odd_lineno IS NOT NULL)
    UNION ALL
    SELECT lineno, parts FROM sacct_repaired
    WHERE contains(line, 'gres/gpuutil') OR contains(line, 'gres/gpumem')
       OR contains(line, 'JS1:')
), fields AS (
    SELECT lineno,
           nullif(trim(coalesce(parts[CAST($i_tot AS INTEGER)], '')), '') AS tot,
           nullif(trim(coalesce(parts[CAST($i_ave AS INTEGER)], '')), '') AS ave,
           nullif(trim(coalesce(parts[CAST($i_admin AS INTEGER)], '')), '') AS admin
    FROM split
)
SELECT f.lineno AS source_line, f.tot, f.ave,
       CASE WHEN starts_with(f.admin, 'JS1:') THEN f.admin END AS admin
FROM fields f;
-- No filter on the split fields here: DuckDB would push it, and a string_split per line with
-- it, into the scan under the substring test (1.2 s more for 250k lines); usage_insert keeps
-- only the lines whose fields say something.
