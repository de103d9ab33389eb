// Package sqlstore is the classroom store written once against
// database/sql, for the two dialects the sqlite and postgres packages
// configure. The queries are plain enough to be shared; what differs (the
// schema, locking, error codes, how changes reach other processes) is in
// Dialect, so the same code, and the same test suite, runs on both.
package sqlstore

import (
	"io/fs"
	"strconv"
	"strings"
)

// Dialect is what differs between SQLite and PostgreSQL.
type Dialect struct {
	Name string
	// Dollar rewrites ? placeholders to $1, $2, ... for PostgreSQL.
	Dollar bool
	// LockRow is appended to a SELECT of one row inside a write transaction
	// to lock it until commit (" FOR NO KEY UPDATE"); SQLite needs none, as
	// its write transactions are serial.
	LockRow string
	// ShareRow is appended to a SELECT to keep the row from being deleted
	// until commit (" FOR SHARE").
	ShareRow string
	// LockClasses is run at the start of a transaction that counts all
	// classes before adding one, so concurrent creations cannot exceed the
	// limit together.
	LockClasses string
	// LockMigrations is run at the start of the migration transaction, so
	// replicas starting together migrate once.
	LockMigrations string
	// SerializeWrites makes writes from this process take a mutex: SQLite
	// allows one writer, and a Go mutex hands the turn over at once where
	// SQLite's busy handler would sleep and poll.
	SerializeWrites bool
	// Migrations holds NNNN_name.sql files, applied in order.
	Migrations fs.FS
	// IsUnique reports a unique-constraint violation.
	IsUnique func(error) bool
	// Retryable reports an error after which the whole transaction may be
	// run again (a PostgreSQL deadlock or serialization failure).
	Retryable func(error) bool
	// NotifyChannel, when set, sends changes with pg_notify inside the
	// writing transaction, so they reach every replica once committed; a
	// listener feeds them to the local hub. Empty means changes are
	// published to the local hub after commit.
	NotifyChannel string
}

// q adapts a query written with ? placeholders to the dialect.
func (d *Dialect) q(query string) string {
	if !d.Dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
