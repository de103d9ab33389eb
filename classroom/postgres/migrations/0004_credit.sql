-- Credit and secret class numbers; see ../sqlite/migrations/0004_credit.sql
-- for what each column means.
-- variant_secret: the class's key to its learners' variants, which are
-- drawn from it on the server and never shown to learners.
ALTER TABLE classes ADD COLUMN variant_secret BYTEA NOT NULL DEFAULT ''::bytea;
UPDATE classes SET variant_secret = decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');

-- score: what the attempt earned, 0 to 1 (0 for an open answer, which the
-- teacher scores); after_reveal: the answer had been shown before it.
ALTER TABLE attempts ADD COLUMN score DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN after_reveal BOOLEAN NOT NULL DEFAULT false;

-- best: the best attempt's score; solved: right before the answer was
-- shown; revealed_at: when the answer was first shown (0: never); open_answer: an
-- open exercise, which the teacher scores.
ALTER TABLE progress ADD COLUMN best DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE progress ADD COLUMN solved BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE progress ADD COLUMN revealed_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE progress ADD COLUMN open_answer BOOLEAN NOT NULL DEFAULT false;

-- What older attempts earned, as near as their records tell: a right
-- answer before any give-up earns 1, anything at or after it nothing.
UPDATE progress SET revealed_at = gave_up_at;
UPDATE progress SET open_answer = true WHERE EXISTS (SELECT 1 FROM attempts a
	WHERE a.learner_id = progress.learner_id AND a.exercise = progress.exercise AND NOT a.graded);
UPDATE attempts SET after_reveal = true WHERE EXISTS (SELECT 1 FROM progress p
	WHERE p.learner_id = attempts.learner_id AND p.exercise = attempts.exercise
	AND p.revealed_at > 0 AND p.revealed_at <= attempts.at);
UPDATE attempts SET score = 1 WHERE graded AND correct AND NOT after_reveal;
UPDATE progress SET
	best = COALESCE((SELECT MAX(a.score) FROM attempts a
		WHERE a.learner_id = progress.learner_id AND a.exercise = progress.exercise), 0),
	solved = EXISTS (SELECT 1 FROM attempts a
		WHERE a.learner_id = progress.learner_id AND a.exercise = progress.exercise
		AND a.graded AND a.correct AND NOT a.after_reveal);
