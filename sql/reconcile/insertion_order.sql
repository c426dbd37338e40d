-- in: the connection   params: $keep (boolean)
-- out: (whether DuckDB keeps rows in input order). Off while the parsed lines are written into
--      sacct_rows: their order there means nothing (each row carries its line), and an
--      unordered insert is written by every thread at once. On again for everything else.
SET preserve_insertion_order = $keep;
