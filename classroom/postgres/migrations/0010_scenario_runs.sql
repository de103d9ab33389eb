-- scenario_runs: a learner ran a prediction exercise's very scenario in the
-- playground (the first such run is kept). An attempt recorded after it is
-- marked after_run, for the teacher to read: nothing is scored by it.
CREATE TABLE scenario_runs (
	learner_id BIGINT NOT NULL REFERENCES learners (id) ON DELETE CASCADE,
	exercise TEXT NOT NULL,
	at BIGINT NOT NULL,
	PRIMARY KEY (learner_id, exercise)
);
ALTER TABLE attempts ADD COLUMN after_run BOOLEAN NOT NULL DEFAULT false;
