-- in: none   params: $rowid (the rowid of the file's first line in sacct_raw; NULL when every
--     row of sacct_raw carries its own lineno)   out: the variable sacct_first_rowid, read by
--     the view sacct_lines (a view cannot hold prepared parameters)
SET VARIABLE sacct_first_rowid = CAST($rowid AS BIGINT);
