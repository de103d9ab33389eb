-- Archived and expired classes, and look-alike learner names.
--
-- archived_at: when the teacher archived the class (0 while in use).
-- active_at: the last join, answer or teacher change, from which the
-- store's retention counts. Classes made before this migration count it
-- from the upgrade, so that none expires (and is soon deleted) the moment
-- a server learns about retention.
ALTER TABLE classes ADD COLUMN archived_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE classes ADD COLUMN active_at INTEGER NOT NULL DEFAULT 0;
UPDATE classes SET active_at = MAX(created_at, CAST(strftime('%s', 'now') AS INTEGER) * 1000);
CREATE INDEX classes_active ON classes (active_at);

-- Learners whose name_key the store must recompute (in Go, right after
-- migrating, in the same transaction): the key is now a confusables
-- skeleton (classroom.NameKey), no longer the lower-cased name. A later
-- change of NameKey refills this table in a migration of its own.
CREATE TABLE learner_rekey (learner_id INTEGER PRIMARY KEY);
INSERT INTO learner_rekey (learner_id) SELECT id FROM learners;
