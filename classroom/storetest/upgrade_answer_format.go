package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// migrateTo brings the empty database db to schema version last, as a
// binary of that time left it.
func migrateTo(t *testing.T, db *sql.DB, d *sqlstore.Dialect, last int) {
	t.Helper()
	all, err := sqlstore.Migrations(d.Migrations)
	if err != nil {
		t.Fatal(err)
	}
	old := *d
	files := fstest.MapFS{}
	for _, m := range all {
		if m.Version > last {
			continue
		}
		name := fmt.Sprintf("%04d_%s.sql", m.Version, m.Name)
		data, err := fs.ReadFile(d.Migrations, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	old.Migrations = files
	if _, err := sqlstore.Migrate(context.Background(), db, &old); err != nil {
		t.Fatalf("migrate to schema %d: %v", last, err)
	}
}

// UpgradeAnswerFormat checks migration 0008: a choice answer kept before
// it ("b", when a letter was the option's own key) reads as
// classroom.AnswerKeyLetters, and every attempt recorded after it as
// classroom.AnswerShownLetters, whatever the caller says. db is a raw
// handle on the empty database at addr, d its dialect.
func UpgradeAnswerFormat(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	migrateTo(t, db, d, 7)
	insert := func(query string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := db.QueryRowContext(ctx, rebind(d, query+` RETURNING id`), args...).Scan(&id); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return id
	}
	key := classroom.NewSecret()
	// A class in use: the store refuses answers to one gone stale.
	now := time.Now().UnixMilli()
	classID := insert(`INSERT INTO classes (code, name, teacher_key_hash, join_open, created_at, active_at)
		VALUES ('LETTER', 'Before', ?, TRUE, ?, ?)`, classroom.HashSecret(key), now, now)
	adaID := insert(`INSERT INTO learners (class_id, name, name_key, session_hash, joined_at) VALUES (?, 'Ada', ?, ?, 1600000000000)`,
		classID, classroom.NameKey("Ada"), classroom.HashSecret(classroom.NewSecret()))
	if _, err := db.ExecContext(ctx, rebind(d, `INSERT INTO progress (learner_id, exercise, class_id, tries, correct, tries_to_correct, last_variant, first_at, last_at)
		VALUES (?, 'pick', ?, 1, FALSE, 0, 3, 1000, 1000)`), adaID, classID); err != nil {
		t.Fatal(err)
	}
	oldID := insert(`INSERT INTO attempts (class_id, learner_id, exercise, try, variant, answer, correct, graded, feedback, parsed, at)
		VALUES (?, ?, 'pick', 1, 3, 'b', FALSE, TRUE, '', 'b', 1000)`, classID, adaID)

	s := h.MustOpen(t, addr, classroom.Options{})
	bo := mustJoin(t, s, "LETTER", "Bo")
	rec := mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "pick", Answer: "b", Graded: true,
		Rule: classroom.RuleDeclining, AnswerFormat: classroom.AnswerKeyLetters})
	if rec.AnswerFormat != classroom.AnswerShownLetters {
		t.Errorf("Record returned answer format %q, want %q", rec.AnswerFormat, classroom.AnswerShownLetters)
	}
	all, err := s.Attempts(ctx, "LETTER", key, "pick")
	if err != nil || len(all) != 2 {
		t.Fatalf("attempts after the upgrade: %+v %v", all, err)
	}
	got := map[int64]string{}
	for _, a := range all {
		got[a.ID] = a.AnswerFormat
	}
	if got[oldID] != classroom.AnswerKeyLetters || got[rec.ID] != classroom.AnswerShownLetters {
		t.Errorf("answer formats: the kept attempt %q, the new one %q; want %q and %q",
			got[oldID], got[rec.ID], classroom.AnswerKeyLetters, classroom.AnswerShownLetters)
	}
}

// KeepAsBeforeAnswerFormat leaves a recorded attempt as migration 0008
// leaves one kept before it: the same row, read as
// classroom.AnswerKeyLetters. A test records the attempt as the code of
// that time did (its answer a letter that was the option's key, its
// verdict that code's) and then calls this, to play an upgraded class.
func KeepAsBeforeAnswerFormat(tb testing.TB, st classroom.Store, attemptID int64) {
	tb.Helper()
	raw, ok := st.(interface{ SQL() *sql.DB })
	if !ok {
		tb.Fatalf("the store %T has no SQL handle", st)
	}
	res, err := raw.SQL().Exec(fmt.Sprintf(`UPDATE attempts SET answer_format = '%s' WHERE id = %d`, classroom.AnswerKeyLetters, attemptID))
	if err != nil {
		tb.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		tb.Fatalf("attempt %d: %d rows changed, want 1", attemptID, n)
	}
}
