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
