-- Times are Unix milliseconds, the same in both dialects.
CREATE TABLE classes (
	id INTEGER PRIMARY KEY,
	code TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	teacher_key_hash BLOB NOT NULL UNIQUE,
	join_open INTEGER NOT NULL DEFAULT 1,
	scenario_preset TEXT NOT NULL DEFAULT '',
	scenario_json TEXT NOT NULL DEFAULT '',
	scenario_at INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL
);

CREATE TABLE learners (
	id INTEGER PRIMARY KEY,
	class_id INTEGER NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	name_key TEXT NOT NULL,
	session_hash BLOB NOT NULL UNIQUE,
	joined_at INTEGER NOT NULL,
	UNIQUE (class_id, name_key)
);

CREATE TABLE progress (
	learner_id INTEGER NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	class_id INTEGER NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	tries INTEGER NOT NULL,
	correct INTEGER NOT NULL,
	tries_to_correct INTEGER NOT NULL,
	last_variant INTEGER NOT NULL,
	first_at INTEGER NOT NULL,
	last_at INTEGER NOT NULL,
	PRIMARY KEY (learner_id, exercise)
);
CREATE INDEX progress_class ON progress (class_id);

CREATE TABLE attempts (
	id INTEGER PRIMARY KEY,
	class_id INTEGER NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	learner_id INTEGER NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	try INTEGER NOT NULL,
	variant INTEGER NOT NULL,
	answer TEXT NOT NULL,
	correct INTEGER NOT NULL,
	graded INTEGER NOT NULL,
	feedback TEXT NOT NULL,
	at INTEGER NOT NULL
);
CREATE INDEX attempts_learner ON attempts (learner_id, exercise);
CREATE INDEX attempts_wrong ON attempts (class_id, exercise, answer) WHERE graded AND NOT correct;
