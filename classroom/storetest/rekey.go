package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// Rekey checks the upgrade of a database made before migration 0003,
// whose learners are keyed by their lower-cased names: opening it
// recomputes every key (classroom.NameKey), so look-alikes of learners
// who joined before the upgrade are refused too. Two learners who already
// look alike both stay. db is a raw handle on the empty database at addr,
// d its dialect.
func Rekey(t *testing.T, h Harness, addr string, db *sql.DB, d *sqlstore.Dialect) {
	ctx := context.Background()
	old := *d
	first, err := fs.ReadFile(d.Migrations, "0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	old.Migrations = fstest.MapFS{"0001_init.sql": {Data: first}}
	if _, err := sqlstore.Migrate(ctx, db, &old); err != nil {
		t.Fatalf("migrate to schema 1: %v", err)
	}
	key := classroom.NewSecret()
	var classID int64
	if err := db.QueryRowContext(ctx, rebind(d, `INSERT INTO classes (code, name, teacher_key_hash, join_open, created_at)
		VALUES ('PASTKY', 'Before', ?, TRUE, 1600000000000) RETURNING id`), classroom.HashSecret(key)).Scan(&classID); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	ids := map[string]int64{}
	// Tim and Tirn look alike, but joined when keys were lower case.
	for _, name := range []string{"Tim", "Tirn", "Ana"} {
		tokens[name] = classroom.NewSecret()
		var id int64
		if err := db.QueryRowContext(ctx, rebind(d, `INSERT INTO learners (class_id, name, name_key, session_hash, joined_at)
			VALUES (?, ?, ?, ?, 1600000000000) RETURNING id`), classID, name, strings.ToLower(name), classroom.HashSecret(tokens[name])).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}

	upgraded := time.Now().Add(-time.Minute)
	s := h.MustOpen(t, addr, classroom.Options{})
	// However old, the class's retention counts from the upgrade.
	c, err := s.Teacher(ctx, "PASTKY", key)
	if err != nil || c.ActiveAt.Before(upgraded) || c.Status(time.Now()) != classroom.ClassOpen {
		t.Fatalf("class from before the upgrade: %+v %v", c, err)
	}
	keys := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT name, name_key FROM learners`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, k string
		if err := rows.Scan(&name, &k); err != nil {
			t.Fatal(err)
		}
		keys[name] = k
	}
	rows.Close()
	want := map[string]string{
		"Tim":  classroom.NameKey("Tim"),
		"Tirn": classroom.NameKey("Tirn") + fmt.Sprintf("#%d", ids["Tirn"]),
		"Ana":  classroom.NameKey("Ana"),
	}
	for name, k := range want {
		if keys[name] != k {
			t.Errorf("learner %s: key %q after the upgrade, want %q", name, keys[name], k)
		}
	}
	var left int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM learner_rekey`).Scan(&left); err != nil || left != 0 {
		t.Errorf("learner_rekey has %d rows left, %v", left, err)
	}
	for _, name := range []string{"Tim", "Tirn", "Ana"} {
		if _, _, err := s.Learner(ctx, tokens[name]); err != nil {
			t.Errorf("%s's session after the upgrade: %v", name, err)
		}
	}
	for name, want := range map[string]string{
		"Ａｎａ":  `looks too much like "Ana"`,
		"Tirn": `"Tirn" looks too much like "Tim"`,
		"Kim":  "",
	} {
		_, err = s.Join(ctx, "PASTKY", name)
		if want == "" {
			if err != nil {
				t.Errorf("join as %s: %v", name, err)
			}
			continue
		}
		wantCode(t, err, classroom.ECONFLICT, "a look-alike of a learner from before the upgrade: "+name)
		if msg := classroom.ErrorMessage(err); !strings.Contains(msg, want) {
			t.Errorf("join as %s: %q, want %q", name, msg, want)
		}
	}
	mustJoin(t, s, "PASTKY", "Bo")
}
