-- device_codes: a one-time code a learner's browser hands another browser
-- to take over the learner's session (kept as its SHA-256, like sessions),
-- until expires_at (ms). One per learner: a new one replaces it.
CREATE TABLE device_codes (
	code_hash BYTEA PRIMARY KEY,
	learner_id BIGINT NOT NULL UNIQUE REFERENCES learners (id) ON DELETE CASCADE,
	expires_at BIGINT NOT NULL
);
