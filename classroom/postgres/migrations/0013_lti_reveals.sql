-- A teacher's reveal of an exercise to a class of a course, waiting to be
-- passed on to the course's gradebook: the queue's worker queues the
-- standing on it of each learner who came by a launch (lti_scores), so
-- the teacher's request does not wait for a whole course, and a restart
-- loses none. learner_id is one learner's (a learner who launched after
-- the reveal), 0 every learner of the class. claimed_until is the lease
-- of the worker passing it on; the row goes once every standing is queued.
CREATE TABLE IF NOT EXISTS lti_reveals (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	learner_id BIGINT NOT NULL DEFAULT 0,
	exercise TEXT NOT NULL,
	claimed_until BIGINT NOT NULL DEFAULT 0,
	UNIQUE (class_id, learner_id, exercise)
);
