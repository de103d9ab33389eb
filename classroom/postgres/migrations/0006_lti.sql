-- Learners' optional student ID and email, and LTI 1.3: the platforms
-- (learning management systems) registered with this tool, the tool's
-- signing keys, logins in flight, used nonces, the class of each course,
-- the learners who came by launch, the graded links and the queue of
-- scores to send back. Times are Unix milliseconds.
ALTER TABLE learners ADD COLUMN student_id TEXT NOT NULL DEFAULT '';
ALTER TABLE learners ADD COLUMN email TEXT NOT NULL DEFAULT '';

CREATE TABLE lti_platforms (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	issuer TEXT NOT NULL,
	client_id TEXT NOT NULL,
	-- One deployment ID a line: a registration may be deployed in
	-- several places of one platform.
	deployment_ids TEXT NOT NULL,
	auth_url TEXT NOT NULL,
	token_url TEXT NOT NULL,
	jwks_url TEXT NOT NULL,
	-- Origins allowed to frame the tool's pages, one a line.
	frame_origins TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	UNIQUE (issuer, client_id)
);

CREATE TABLE lti_keys (
	kid TEXT PRIMARY KEY,
	private_pem TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	-- When a rotation replaced it (0 for the current key): it stays
	-- published for a while after, for tokens signed just before.
	retired_at BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE lti_logins (
	state_hash BYTEA PRIMARY KEY,
	platform_id BIGINT NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
	nonce TEXT NOT NULL,
	expires_at BIGINT NOT NULL
);
CREATE INDEX lti_logins_expiry ON lti_logins (expires_at);

CREATE TABLE lti_nonces (
	platform_id BIGINT NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
	nonce TEXT NOT NULL,
	expires_at BIGINT NOT NULL,
	PRIMARY KEY (platform_id, nonce)
);
CREATE INDEX lti_nonces_expiry ON lti_nonces (expires_at);

CREATE TABLE lti_contexts (
	platform_id BIGINT NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
	context_id TEXT NOT NULL,
	class_id BIGINT NOT NULL UNIQUE REFERENCES classes (id) ON DELETE CASCADE,
	title TEXT NOT NULL,
	memberships_url TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (platform_id, context_id)
);

CREATE TABLE lti_users (
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	sub TEXT NOT NULL,
	learner_id BIGINT NOT NULL UNIQUE REFERENCES learners (id) ON DELETE CASCADE,
	PRIMARY KEY (class_id, sub)
);

CREATE TABLE lti_links (
	platform_id BIGINT NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
	resource_link_id TEXT NOT NULL,
	class_id BIGINT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
	-- What the link opens: "exercise:ID" or "lesson:SLUG".
	target TEXT NOT NULL,
	lineitem_url TEXT NOT NULL,
	PRIMARY KEY (platform_id, resource_link_id)
);
CREATE INDEX lti_links_class ON lti_links (class_id, target);

CREATE TABLE lti_scores (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	platform_id BIGINT NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
	lineitem_url TEXT NOT NULL,
	user_sub TEXT NOT NULL,
	score_given DOUBLE PRECISION NOT NULL,
	score_max DOUBLE PRECISION NOT NULL,
	scored_at BIGINT NOT NULL,
	tries BIGINT NOT NULL DEFAULT 0,
	next_at BIGINT NOT NULL,
	claimed_until BIGINT NOT NULL DEFAULT 0,
	-- done_at is set once sent, superseded by a better score, or given
	-- up after the last try (then last_error says why).
	done_at BIGINT NOT NULL DEFAULT 0,
	outcome TEXT NOT NULL DEFAULT '',
	last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX lti_scores_due ON lti_scores (done_at, next_at);
CREATE INDEX lti_scores_user ON lti_scores (lineitem_url, user_sub);

CREATE TABLE lti_deep_links (
	token_hash BYTEA PRIMARY KEY,
	platform_id BIGINT NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
	deployment_id TEXT NOT NULL,
	return_url TEXT NOT NULL,
	data TEXT NOT NULL,
	expires_at BIGINT NOT NULL
);
