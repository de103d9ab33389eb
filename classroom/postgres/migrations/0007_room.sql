-- Pacing a live class; see ../sqlite/migrations/0007_room.sql.
ALTER TABLE classes ADD COLUMN scenario_lesson TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN scenario_exercise TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN settings TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN late BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE progress ADD COLUMN late_at BIGINT NOT NULL DEFAULT 0;
