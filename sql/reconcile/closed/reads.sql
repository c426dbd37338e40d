-- in: closed_use   params: none
-- out: one row: whether this review reads any closed job's rows (else the *_all views are
--      built plain: reconcile/relations.py, Relation.plain)
SELECT upto > 0 FROM closed_use;
