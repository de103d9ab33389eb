-- Who made each class; see ../sqlite/migrations/0005_class_limits.sql.
ALTER TABLE classes ADD COLUMN creator_addr TEXT NOT NULL DEFAULT '';
CREATE INDEX classes_creator ON classes (creator_addr, created_at);
CREATE INDEX classes_created ON classes (created_at);
