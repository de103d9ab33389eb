-- Who made each class; see ../sqlite/migrations/0005_class_limits.sql.
ALTER TABLE classes ADD COLUMN creator_addr TEXT NOT NULL DEFAULT '';
CREATE INDEX classes_creator ON classes (creator_addr, created_at);
CREATE INDEX classes_created ON classes (created_at);

-- NameKey changed (capitals and a dotted i no longer slip past it): the
-- store recomputes every learner's key right after migrating.
INSERT INTO learner_rekey (learner_id) SELECT id FROM learners WHERE id NOT IN (SELECT learner_id FROM learner_rekey);
