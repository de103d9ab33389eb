-- Who made each class, so that one address cannot make every class the
-- server allows (classroom.Limits.MaxClassesPerAddress).
--
-- creator_addr: the creating client's address (an IPv6 address cut to its
-- /64), '' for classes made before this migration, by the command line,
-- or by a launch that names no address; those count against no address.
ALTER TABLE classes ADD COLUMN creator_addr TEXT NOT NULL DEFAULT '';
CREATE INDEX classes_creator ON classes (creator_addr, created_at);
CREATE INDEX classes_created ON classes (created_at);

-- NameKey changed (capitals and a dotted i no longer slip past it): the
-- store recomputes every learner's key right after migrating.
INSERT INTO learner_rekey (learner_id) SELECT id FROM learners WHERE id NOT IN (SELECT learner_id FROM learner_rekey);

-- Bytes of answers stored, per learner and exercise (a learner's are the
-- sum of their rows) and per class, kept as the attempts are recorded, for
-- classroom.Limits.MaxBytesPerLearner and MaxBytesPerClass. Attempts from
-- before count by their answers' length in characters and a row's
-- overhead.
ALTER TABLE progress ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE classes ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE progress SET stored_bytes = (SELECT COALESCE(SUM(LENGTH(answer) + 64), 0) FROM attempts a
	WHERE a.learner_id = progress.learner_id AND a.exercise = progress.exercise);
UPDATE classes SET stored_bytes = (SELECT COALESCE(SUM(stored_bytes), 0) FROM progress p WHERE p.class_id = classes.id);
