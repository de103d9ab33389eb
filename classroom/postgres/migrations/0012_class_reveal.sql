-- A teacher's reveal to the class (settings.revealed) stands for every
-- learner of it: one who had not answered the exercise reads revealed,
-- with 0, not "not tried" (docs/classroom.md). The store now marks them
-- at the reveal and at a later join; this marks those of the reveals made
-- before, as at the time of the upgrade. A row already revealed keeps its
-- time; one solved stays solved.
INSERT INTO progress (learner_id, exercise, class_id, tries, correct, tries_to_correct, last_variant, first_at, last_at, revealed_at)
SELECT l.id, r.value, l.class_id, 0, false, 0, 0, 0, 0, (extract(epoch FROM now()) * 1000)::bigint
FROM classes c
JOIN learners l ON l.class_id = c.id
CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN c.settings <> '' THEN c.settings::jsonb -> 'revealed' END) AS r (value)
ON CONFLICT (learner_id, exercise) DO UPDATE SET revealed_at = excluded.revealed_at WHERE progress.revealed_at = 0;
