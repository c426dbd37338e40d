-- in: sacct_lines (the numbered lines of the export being landed)   params: $linenos
-- out: (lineno, line): the text of those lines, for the quarantine
SELECT lineno, line FROM sacct_lines WHERE list_contains($linenos, lineno);
