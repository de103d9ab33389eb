package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvPostgres names the PostgreSQL database tests may use (.ci/run starts a
// local one and sets it); without it, PostgreSQL tests are skipped.
const EnvPostgres = "PLAYGROUND_TEST_POSTGRES"

// PostgresURL returns the test database's URL, or skips tb when none is
// set.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvPostgres)
	if u == "" {
		tb.Skipf("%s is not set: skipping the PostgreSQL tests (.ci/run starts a local PostgreSQL and sets it)", EnvPostgres)
	}
	return u
}

// PostgresSchema creates an empty schema, named prefix plus random hex, in
// the test database, drops it when tb ends, and returns a URL whose
// connections use it: tests in parallel never see one another's tables.
// The connections are named after the schema (application_name), so a
// test that reads pg_stat_activity can tell its own from others'.
func PostgresSchema(tb testing.TB, prefix string) string {
	tb.Helper()
	base := PostgresURL(tb)
	b := make([]byte, 6)
	rand.Read(b)
	schema := prefix + hex.EncodeToString(b)
	db, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		db.Close()
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
