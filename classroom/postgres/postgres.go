// Package postgres is the classroom store in PostgreSQL (jackc/pgx v5),
// which several replicas behind a load balancer share. A commit is
// durable once PostgreSQL acknowledges it (synchronous_commit on, its
// default). Changes reach every replica's subscribers through
// LISTEN/NOTIFY: see listen.go.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Advisory lock keys, arbitrary but fixed: every replica must use the same.
const (
	lockMigrations = 74_652_001
	lockClasses    = 74_652_002
)

// Dialect returns the PostgreSQL dialect of the shared store; channel is
// the NOTIFY channel of its changes.
func Dialect(channel string) *sqlstore.Dialect {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err)
	}
	return &sqlstore.Dialect{
		Name:           "postgres",
		Dollar:         true,
		LockRow:        " FOR NO KEY UPDATE",
		ShareRow:       " FOR SHARE",
		LockClasses:    fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", lockClasses),
		LockMigrations: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", lockMigrations),
		Migrations:     sub,
		IsUnique:       func(err error) bool { return pgCode(err) == "23505" },
		// 40P01 deadlock, 40001 serialization failure: PostgreSQL rolled
		// the transaction back and running it again is the cure.
		Retryable:     func(err error) bool { c := pgCode(err); return c == "40P01" || c == "40001" },
		NotifyChannel: channel,
	}
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Open connects to the database at url (postgres://...), migrates it and
// starts listening for changes. It fails if PostgreSQL does not answer
// within ctx.
func Open(ctx context.Context, url string, opts classroom.Options) (*sqlstore.DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("classroom database: %w", err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	// The channel is per schema, so stores in different schemas of one
	// database (tests, or two deployments) do not wake each other.
	var schema string
	if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("classroom database: %w", err)
	}
	d := Dialect("classroom_changes:" + schema)
	if _, err := sqlstore.Migrate(ctx, db, d); err != nil {
		db.Close()
		return nil, fmt.Errorf("classroom database: %w", err)
	}
	s := sqlstore.New(db, d, opts)
	l, err := listen(ctx, url, d.NotifyChannel, s.Hub())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("classroom database: listen: %w", err)
	}
	s.OnClose(l.stop)
	return s, nil
}
