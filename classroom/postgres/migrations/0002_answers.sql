-- What the teaching loop keeps beyond right and wrong; see
-- ../sqlite/migrations/0002_answers.sql for what each column means.
ALTER TABLE classes ADD COLUMN variants TEXT NOT NULL DEFAULT 'per-learner';

ALTER TABLE attempts ADD COLUMN mistake TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN parsed TEXT NOT NULL DEFAULT '';
CREATE INDEX attempts_mistakes ON attempts (class_id, exercise, mistake, parsed) WHERE graded AND NOT correct;
CREATE INDEX attempts_text ON attempts (class_id, exercise) WHERE NOT graded;

ALTER TABLE progress ADD COLUMN gave_up_at BIGINT NOT NULL DEFAULT 0;

CREATE TABLE reviews (
	learner_id BIGINT NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	score DOUBLE PRECISION NOT NULL,
	comment TEXT NOT NULL,
	at BIGINT NOT NULL,
	PRIMARY KEY (learner_id, exercise)
);
CREATE INDEX reviews_class ON reviews (class_id);

CREATE TABLE server_secrets (
	name TEXT PRIMARY KEY,
	value BYTEA NOT NULL,
	created_at BIGINT NOT NULL
);
