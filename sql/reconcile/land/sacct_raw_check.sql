-- in: sacct_raw, as sacct_read_csv left it   params: none
-- out: bytes: what the rows account for, every line and its newline (a blank line is a NULL
--      row: one byte), which equals the file's size when read_csv gave exactly one row per
--      line; first_rowid and consecutive: whether the rowids run without a gap, so that
--      rowid - first_rowid + 1 is the line number (rowid order is the file's order; the
--      values start higher inside a transaction)
SELECT coalesce(sum(coalesce(strlen(line), 0) + 1), 0) AS bytes,
       min(rowid) AS first_rowid,
       coalesce(max(rowid) - min(rowid) + 1 = count(*), true) AS consecutive
FROM sacct_raw;
