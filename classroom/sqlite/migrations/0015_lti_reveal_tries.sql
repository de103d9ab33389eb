-- A reveal whose learners' standings could not all be queued is tried
-- again with backoff, as a score is (tries, next_at), and given up after
-- the last try: failed_at is set, last_error says why, and the row stays
-- (not claimed again) until the teacher changes the class's settings or
-- reveals the exercise again, which queues it anew.
ALTER TABLE lti_reveals ADD COLUMN tries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lti_reveals ADD COLUMN next_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lti_reveals ADD COLUMN failed_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lti_reveals ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
