-- in: sacct_lines, sacct_strings, sacct_repaired (this landing's split), sacct_rows
-- params: $source_id (the landing in progress), $delim, $first_data_line, $i_tot, $i_ave,
--         $i_admin (1-based positions of TRESUsageInTot, TRESUsageInAve, AdminComment; NULL
--         when the export lacks one)
-- out: temp table usage_lines(source_line, tot, ave, admin): the usage fields of the lines
--      that landed in sacct_rows (a quarantined or duplicate line has none), only those that
--      say something. Lines are split as sacct_normalize splits them: the rejoined over-long
--      ones come from sacct_repaired.
CREATE OR REPLACE TEMP TABLE usage_lines AS
WITH split AS (
    SELECT lineno, string_split(line, $delim) AS parts
    FROM sacct_lines
    WHERE lineno >= $first_data_line
      AND lineno NOT IN (SELECT odd_lineno FROM sacct_strings WHERE odd_lineno IS NOT NULL)
    UNION ALL
    SELECT lineno, parts FROM sacct_repaired
), fields AS (
    SELECT lineno,
           nullif(trim(coalesce(parts[CAST($i_tot AS INTEGER)], '')), '') AS tot,
           nullif(trim(coalesce(parts[CAST($i_ave AS INTEGER)], '')), '') AS ave,
           nullif(trim(coalesce(parts[CAST($i_admin AS INTEGER)], '')), '') AS admin
    FROM split
)
SELECT f.lineno AS source_line, f.tot, f.ave,
       CASE WHEN starts_with(f.admin, 'JS1:') THEN f.admin END AS admin
FROM fields f
SEMI JOIN (SELECT source_line FROM sacct_rows WHERE source_id = $source_id) r
       ON r.source_line = f.lineno
WHERE f.tot IS NOT NULL OR f.ave IS NOT NULL OR starts_with(f.admin, 'JS1:');
