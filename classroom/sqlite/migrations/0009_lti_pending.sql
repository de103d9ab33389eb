-- pending: the score is partial, waiting for the teacher to score an open
-- answer counted in it (an open answer's own link, or a lesson with one):
-- sent as gradingProgress "PendingManual" so the course's gradebook shows
-- it needs grading, not as a final grade. Scores queued before are final.
ALTER TABLE lti_scores ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
