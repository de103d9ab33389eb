-- A teacher's reveal of an exercise to a class of a course, waiting to be
-- passed on to the course's gradebook: the queue's worker queues the
-- standing on it of each learner who came by a launch (lti_scores), so
-- the teacher's request does not wait for a whole course, and a restart
-- loses none. learner_id is one learner's (a learner who launched after
-- the reveal), 0 every learner of the class. claimed_until is the lease
-- of the worker passing it on; the row goes once every standing is queued.
CREATE TABLE IF NOT EXISTS lti_reveals (
	id INTEGER PRIMARY KEY,
	class_id INTEGER NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	learner_id INTEGER NOT NULL DEFAULT 0,
	exercise TEXT NOT NULL,
	claimed_until INTEGER NOT NULL DEFAULT 0,
	UNIQUE (class_id, learner_id, exercise)
);
-- Reveals made before this sent no 0s (migration 0012 stood the learners
-- at revealed, and nothing told the course): each is passed on once. The
-- queue sends only standings that changed.
INSERT INTO lti_reveals (class_id, learner_id, exercise)
SELECT c.id, 0, r.value
FROM classes c
JOIN lti_contexts x ON x.class_id = c.id
JOIN json_each(CASE WHEN json_valid(c.settings) THEN c.settings ELSE '{}' END, '$.revealed') r
WHERE r.type = 'text'
ON CONFLICT (class_id, learner_id, exercise) DO NOTHING;
