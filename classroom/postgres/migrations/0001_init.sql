-- Times are Unix milliseconds, the same in both dialects; see ../sqlite/migrations.
CREATE TABLE classes (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	code TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	teacher_key_hash BYTEA NOT NULL UNIQUE,
	join_open BOOLEAN NOT NULL DEFAULT TRUE,
	scenario_preset TEXT NOT NULL DEFAULT '',
	scenario_json TEXT NOT NULL DEFAULT '',
	scenario_at BIGINT NOT NULL DEFAULT 0,
	created_at BIGINT NOT NULL
);

CREATE TABLE learners (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	name_key TEXT NOT NULL,
	session_hash BYTEA NOT NULL UNIQUE,
	joined_at BIGINT NOT NULL,
	UNIQUE (class_id, name_key)
);

CREATE TABLE progress (
	learner_id BIGINT NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	tries INTEGER NOT NULL,
	correct BOOLEAN NOT NULL,
	tries_to_correct INTEGER NOT NULL,
	last_variant INTEGER NOT NULL,
	first_at BIGINT NOT NULL,
	last_at BIGINT NOT NULL,
	PRIMARY KEY (learner_id, exercise)
);
CREATE INDEX progress_class ON progress (class_id);

CREATE TABLE attempts (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	learner_id BIGINT NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	try INTEGER NOT NULL,
	variant INTEGER NOT NULL,
	answer TEXT NOT NULL,
	correct BOOLEAN NOT NULL,
	graded BOOLEAN NOT NULL,
	feedback TEXT NOT NULL,
	at BIGINT NOT NULL
);
CREATE INDEX attempts_learner ON attempts (learner_id, exercise);
CREATE INDEX attempts_wrong ON attempts (class_id, exercise, answer) WHERE graded AND NOT correct;
