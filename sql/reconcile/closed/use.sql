-- in: closed_accounting   params: $in_use (false: a review that reads every job itself)
-- out: temp table closed_use(upto): the largest closed_id this review reads (0: none), so the
--      *_all views and closed_keys.sql leave out the jobs the review itself closes at its end
CREATE OR REPLACE TEMP TABLE closed_use AS
SELECT CASE WHEN $in_use THEN (SELECT coalesce(max(closed_id), 0) FROM closed_accounting)
            ELSE 0 END AS upto;
