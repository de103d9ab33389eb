-- Archived and expired classes, and look-alike learner names; see
-- ../sqlite/migrations/0003_lifecycle.sql for what each part is for.
ALTER TABLE classes ADD COLUMN archived_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE classes ADD COLUMN active_at BIGINT NOT NULL DEFAULT 0;
UPDATE classes SET active_at = GREATEST(created_at, (EXTRACT(EPOCH FROM now()) * 1000)::BIGINT);
CREATE INDEX classes_active ON classes (active_at);

CREATE TABLE learner_rekey (learner_id BIGINT PRIMARY KEY);
INSERT INTO learner_rekey (learner_id) SELECT id FROM learners;
