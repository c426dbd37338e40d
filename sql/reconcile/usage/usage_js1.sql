-- in: usage_lines   params: none
-- out: (source_line, admin) of every staged line whose AdminComment is a jobstats summary
--      (JS1:...), for Python to decode (gpu_usage.decode_js1)
SELECT source_line, admin FROM usage_lines WHERE admin IS NOT NULL ORDER BY source_line;
