package postgres_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/storetest"
)

// newSchema gives a test an empty schema of its own.
func newSchema(tb testing.TB) string { return storetest.PostgresSchema(tb, "test_") }

func harness() storetest.Harness {
	return storetest.Harness{
		New: newSchema,
		Open: func(ctx context.Context, addr string, opts classroom.Options) (classroom.Store, error) {
			return postgres.Open(ctx, addr, opts)
		},
		Replicas: true,
	}
}

func TestStore(t *testing.T) { storetest.Run(t, harness()) }

func BenchmarkStore(b *testing.B) { storetest.Bench(b, harness()) }

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := postgres.Dialect("test")
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
	// Replicas starting together: the advisory lock lets one migrate and
	// the others find nothing to do.
	addr2 := newSchema(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(ctx, addr2, classroom.Options{})
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent start-up: %v", err)
		}
	}
	if _, err := db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)"); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlstore.Migrate(ctx, db, d); err == nil {
		t.Fatal("a database with an unknown schema version was accepted")
	}
}

// TestListenerReconnects cuts the LISTEN connection from the server side,
// as a PostgreSQL restart or failover would: subscribers are told to
// reload (changes may have been lost meanwhile), and later changes arrive.
func TestListenerReconnects(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := newSchema(t)
	s, err := postgres.Open(ctx, addr, classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nc, err := s.CreateClass(ctx, "Failover")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Subscribe(ctx, nc.Class.ID)
	if err != nil {
		t.Fatal(err)
	}
	var killed int
	err = s.SQL().QueryRowContext(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN %' AND query LIKE '%' || current_schema() || '%'`).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("terminated %d listener connections, %v; want 1", killed, err)
	}
	wait := func(kind string) {
		t.Helper()
		select {
		case c := <-ch:
			if c.Kind != kind {
				t.Fatalf("change %+v, want %s", c, kind)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s change within 10s", kind)
		}
	}
	wait(classroom.ChangeResync)
	if _, err := s.Join(ctx, nc.Class.Code, "Ana"); err != nil {
		t.Fatal(err)
	}
	wait(classroom.ChangeJoin)
}

func TestUpgradeRecomputesNameKeys(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.Rekey(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradeScoresOldAttempts(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeCredit(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradeMarksOldChoiceAnswers(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeAnswerFormat(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradeMarksClassReveals(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeClassReveal(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradePassesOnClassReveals(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIReveal(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradeNamesQueuedScoresOwners(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIScoreOwner(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradeCountsScoresItCouldNotMatch(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIScoreUnmatched(t, harness(), addr, db, postgres.Dialect("test"))
}

func TestUpgradeUnmatchedScoreWithdrawnTellsEveryLinkedClass(t *testing.T) {
	addr := newSchema(t)
	db, err := sql.Open("pgx", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.UpgradeLTIRemovedUnmatched(t, harness(), addr, db, postgres.Dialect("test"))
}
