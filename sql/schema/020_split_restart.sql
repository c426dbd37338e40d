-- 020: tracked_splits.restart_s keeps each stored split's restart (reconcile/timelines.py
--   restart_seconds: allocation start → the first step beyond the resumed one, within its
--   recovery), so a review builds the goodput stretches of the campaign to date in SQL
--   (reconcile/review/goodput_stretches.sql) instead of decoding every stored split's steps
--   in Python. A row stored before this migration (or imported from an export made before
--   it) has none: tracked_allocations.sql does not reuse it, so the next review splits that
--   job again and stores it with the column.
ALTER TABLE tracked_splits ADD COLUMN restart_s BIGINT;
