-- Pacing a live class.
--
-- scenario_lesson, scenario_exercise: a pushed lesson or exercise (the
-- push is one of preset, scenario document, lesson or exercise).
-- settings: the class's settings (classroom.Settings) as JSON; '' is the
-- defaults (show me allowed, every lesson open, no deadline).
ALTER TABLE classes ADD COLUMN scenario_lesson TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN scenario_exercise TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN settings TEXT NOT NULL DEFAULT '';

-- late: the attempt came after the class's deadline (kept, earns
-- nothing); progress.late_at: the first late attempt (0: none).
ALTER TABLE attempts ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
ALTER TABLE progress ADD COLUMN late_at INTEGER NOT NULL DEFAULT 0;
