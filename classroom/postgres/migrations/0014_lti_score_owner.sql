-- The class and learner each queued score is for, so that removing a
-- learner withdraws exactly their scores still to be sent, on whatever
-- line item they were queued for (a link re-pointed since to another
-- keeps them no more). 0 where an older score's owner cannot be told.
ALTER TABLE lti_scores ADD COLUMN class_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE lti_scores ADD COLUMN learner_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX lti_scores_owner ON lti_scores (class_id, learner_id);
-- Scores queued before: the class is the one class whose link names the
-- line item, else the one class of the platform where the user launched;
-- the learner is that class's learner with the user's ID.
UPDATE lti_scores SET class_id = COALESCE(
	(SELECT MIN(k.class_id) FROM lti_links k
		WHERE k.platform_id = lti_scores.platform_id AND k.lineitem_url = lti_scores.lineitem_url
		HAVING COUNT(DISTINCT k.class_id) = 1),
	(SELECT MIN(u.class_id) FROM lti_users u JOIN lti_contexts x ON x.class_id = u.class_id
		WHERE x.platform_id = lti_scores.platform_id AND u.sub = lti_scores.user_sub
		HAVING COUNT(DISTINCT u.class_id) = 1),
	0);
UPDATE lti_scores SET learner_id = COALESCE(
	(SELECT u.learner_id FROM lti_users u WHERE u.class_id = lti_scores.class_id AND u.sub = lti_scores.user_sub), 0)
WHERE class_id <> 0;
