package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// UpgradeCredit checks the upgrade of a database made before migration
// 0004: every class gets a variant secret of its own, and the attempts
// and progress already kept get their scores as near as their records
// tell: a right answer before any give-up earns 1 and is solved, a right
// answer after one earns nothing and reads as revealed. db is a raw
// handle on the empty database at addr, d its dialect.
func UpgradeCredit(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	old := *d
	files := fstest.MapFS{}
	for _, name := range []string{"0001_init.sql", "0002_answers.sql", "0003_lifecycle.sql"} {
		data, err := fs.ReadFile(d.Migrations, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	old.Migrations = files
	if _, err := sqlstore.Migrate(ctx, db, &old); err != nil {
		t.Fatalf("migrate to schema 3: %v", err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, rebind(d, query), args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	insert := func(query string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := db.QueryRowContext(ctx, rebind(d, query+` RETURNING id`), args...).Scan(&id); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return id
	}
	keys := map[string]string{}
	var classID int64
	for _, code := range []string{"PASTAA", "PASTBB"} {
		keys[code] = classroom.NewSecret()
		id := insert(`INSERT INTO classes (code, name, teacher_key_hash, join_open, created_at, active_at)
			VALUES (?, 'Before', ?, TRUE, 1600000000000, 1600000000000)`, code, classroom.HashSecret(keys[code]))
		if classID == 0 {
			classID = id
		}
	}
	// Ada: wrong, then right. Bo: gave up at 5 s, then right at 6 s.
	ids := map[string]int64{}
	for _, name := range []string{"Ada", "Bo"} {
		ids[name] = insert(`INSERT INTO learners (class_id, name, name_key, session_hash, joined_at) VALUES (?, ?, ?, ?, 1600000000000)`,
			classID, name, classroom.NameKey(name), classroom.HashSecret(classroom.NewSecret()))
	}
	exec(`INSERT INTO progress (learner_id, exercise, class_id, tries, correct, tries_to_correct, last_variant, first_at, last_at, gave_up_at)
		VALUES (?, 'num', ?, 2, TRUE, 2, 3, 1000, 2000, 0), (?, 'num', ?, 1, TRUE, 1, 4, 6000, 6000, 5000)`, ids["Ada"], classID, ids["Bo"], classID)
	exec(`INSERT INTO attempts (class_id, learner_id, exercise, try, variant, answer, correct, graded, feedback, at)
		VALUES (?, ?, 'num', 1, 3, '40', FALSE, TRUE, '', 1000), (?, ?, 'num', 2, 3, '50', TRUE, TRUE, '', 2000),
		(?, ?, 'num', 1, 4, '50', TRUE, TRUE, '', 6000)`, classID, ids["Ada"], classID, ids["Ada"], classID, ids["Bo"])

	s := h.MustOpen(t, addr, classroom.Options{})
	one, err := s.Teacher(ctx, "PASTAA", keys["PASTAA"])
	if err != nil {
		t.Fatal(err)
	}
	two, err := s.Teacher(ctx, "PASTBB", keys["PASTBB"])
	if err != nil {
		t.Fatal(err)
	}
	if len(one.VariantSecret) != 32 || len(two.VariantSecret) != 32 || string(one.VariantSecret) == string(two.VariantSecret) {
		t.Fatalf("variant secrets after the upgrade: %x and %x, want 32 random bytes each", one.VariantSecret, two.VariantSecret)
	}
	d4, err := s.Dashboard(ctx, "PASTAA", keys["PASTAA"])
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range d4.Progress {
		sc, _ := classroom.BestScore(p)
		got[p.LearnerName] = fmt.Sprintf("%s %v", p.Status(), sc)
	}
	if got["Ada"] != "solved 1" || got["Bo"] != "revealed 0" {
		t.Errorf("progress after the upgrade: %v, want Ada solved 1, Bo revealed 0", got)
	}
	all, err := s.Attempts(ctx, "PASTAA", keys["PASTAA"], "")
	if err != nil || len(all) != 3 {
		t.Fatalf("attempts after the upgrade: %v %v", all, err)
	}
	if all[1].Score != 1 || all[2].Score != 0 || !all[2].AfterReveal {
		t.Errorf("attempts after the upgrade: %+v", all)
	}
}
