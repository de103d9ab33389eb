package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/classroom/storetest"
)

func harness() storetest.Harness {
	return storetest.Harness{
		New: func(tb testing.TB) string { return tb.TempDir() },
		Open: func(ctx context.Context, dir string, opts classroom.Options) (classroom.Store, error) {
			return sqlite.Open(ctx, dir, opts)
		},
		Exclusive: true,
	}
}

func TestStore(t *testing.T) { storetest.Run(t, harness()) }

func BenchmarkStore(b *testing.B) { storetest.Bench(b, harness()) }

func TestCreatedOnFirstStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	s, err := sqlite.Open(context.Background(), dir, classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, sqlite.FileName)); err != nil {
		t.Fatalf("the database file was not created: %v", err)
	}
	var mode, sync string
	db := s.SQL()
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q %v, want wal", mode, err)
	}
	// 2 is FULL: a commit syncs the log before it returns.
	if err := db.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil || sync != "2" {
		t.Fatalf("synchronous %q %v, want 2 (FULL)", sync, err)
	}
	var busy, fk int
	if err := db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil || busy < 1000 {
		t.Fatalf("busy_timeout %d %v: another process's write would fail at once", busy, err)
	}
	// Removing a learner relies on ON DELETE CASCADE, which SQLite enforces
	// only with foreign keys on.
	if err := db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys %d %v", fk, err)
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := sqlite.Dialect()
	all, err := sqlstore.Migrations(d.Migrations)
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations: %v %v", all, err)
	}
	applied, err := sqlstore.Migrate(ctx, db, d)
	if err != nil || len(applied) != len(all) {
		t.Fatalf("from empty: applied %v, %v; want all %d", applied, err, len(all))
	}
	applied, err = sqlstore.Migrate(ctx, db, d)
	if err != nil || len(applied) != 0 {
		t.Fatalf("again: applied %v, %v; want none", applied, err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil || n != len(all) {
		t.Fatalf("schema_migrations has %d rows, %v", n, err)
	}
	// A database from a newer binary is refused, not used.
	if _, err := db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)"); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlstore.Migrate(ctx, db, d); err == nil {
		t.Fatal("a database with an unknown schema version was accepted")
	}
}

func TestUpgradeRecomputesNameKeys(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.Rekey(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradeScoresOldAttempts(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeCredit(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradeMarksOldChoiceAnswers(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeAnswerFormat(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradeMarksClassReveals(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeClassReveal(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradePassesOnClassReveals(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIReveal(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradeNamesQueuedScoresOwners(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIScoreOwner(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradeCountsScoresItCouldNotMatch(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIScoreUnmatched(t, harness(), dir, db, sqlite.Dialect())
}

func TestUpgradeUnmatchedScoreWithdrawnTellsEveryLinkedClass(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIRemovedUnmatched(t, harness(), dir, db, sqlite.Dialect())
}
