-- in: _sacct_json_lines (registered frame: lineno, line = a JSON record as sacct text fields
--     joined by \x1f)   params: none   out: temp table sacct_lines, as for a text export
CREATE OR REPLACE TEMP TABLE sacct_lines AS SELECT lineno, line FROM _sacct_json_lines;
