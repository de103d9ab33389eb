-- What the teaching loop keeps beyond right and wrong (see ../../doc.go,
-- "Text answers, reviews and mistakes").
--
-- variants: 'per-learner' (each learner their own numbers) or 'shared'
-- (everyone the notes' numbers, to discuss one question in a lecture).
ALTER TABLE classes ADD COLUMN variants TEXT NOT NULL DEFAULT 'per-learner';

-- mistake: the checker's name for a wrong answer's misconception, the
-- same on every variant ('' when it matches none); parsed: the answer as
-- the checker read it ("4,950" for "4950 runs"), which groups the
-- unnamed ones.
ALTER TABLE attempts ADD COLUMN mistake TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN parsed TEXT NOT NULL DEFAULT '';
CREATE INDEX attempts_mistakes ON attempts (class_id, exercise, mistake, parsed) WHERE graded AND NOT correct;
CREATE INDEX attempts_text ON attempts (class_id, exercise) WHERE NOT graded;

-- gave_up_at: when the learner asked to be shown the answer (0: never).
ALTER TABLE progress ADD COLUMN gave_up_at INTEGER NOT NULL DEFAULT 0;

-- A teacher's score (0 to 1) and comment on a learner's open answer to
-- an exercise: one per learner and exercise, the latest wins.
CREATE TABLE reviews (
	learner_id INTEGER NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	class_id INTEGER NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	score REAL NOT NULL,
	comment TEXT NOT NULL,
	at INTEGER NOT NULL,
	PRIMARY KEY (learner_id, exercise)
);
CREATE INDEX reviews_class ON reviews (class_id);

-- Random keys a server needs to share with its replicas and keep across
-- restarts (the key that signs anonymous learners' practice cookies),
-- made on first use.
CREATE TABLE server_secrets (
	name TEXT PRIMARY KEY,
	value BLOB NOT NULL,
	created_at INTEGER NOT NULL
);
