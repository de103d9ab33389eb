// Package sqlite is the classroom store in a SQLite file (pure Go,
// modernc.org/sqlite): the default, with nothing to install.
//
// Durability: the database is in WAL mode with synchronous=FULL, so a
// commit returns only after the write-ahead log is synced to disk. NORMAL
// would survive a killed process too (the log is in the OS's cache), but
// not a power cut or a crashed VM, and an acknowledged check must survive
// both; FULL costs one fsync per write, which the benchmark measures.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// FileName is the database's name inside the data folder.
const FileName = "classroom.db"

// Dialect returns the SQLite dialect of the shared store.
func Dialect() *sqlstore.Dialect {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err)
	}
	return &sqlstore.Dialect{
		Name:            "sqlite",
		SerializeWrites: true,
		Migrations:      sub,
		IsUnique: func(err error) bool {
			var se *sqlite.Error
			return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
		},
	}
}

// Open opens (creating if needed) the store in dir/classroom.db and
// migrates it. It holds the folder's lock (LockName) until Close: while
// one server has the folder open, another's Open fails with a
// *FolderInUseError.
func Open(ctx context.Context, dir string, opts classroom.Options) (*sqlstore.DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("classroom data folder: %w", err)
	}
	release, err := lockFolder(dir)
	if err != nil {
		return nil, err
	}
	s, err := OpenFile(ctx, filepath.Join(dir, FileName), opts)
	if err != nil {
		release()
		return nil, err
	}
	// Released once the database is closed, its log checkpointed.
	s.AfterClose(release)
	return s, nil
}

// OpenFile opens (creating if needed) the store in one file and migrates
// it.
func OpenFile(ctx context.Context, path string, opts classroom.Options) (*sqlstore.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	// Write transactions take the write lock at BEGIN: a deferred one that
	// read first could find the database changed under it and fail with
	// SQLITE_BUSY no busy timeout can cure.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("classroom database %s: %w", path, err)
	}
	// WAL lets readers run beside the one writer; more connections than
	// cores buy nothing.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	d := Dialect()
	if _, err := sqlstore.Migrate(ctx, db, d); err != nil {
		db.Close()
		return nil, fmt.Errorf("classroom database %s: %w", path, err)
	}
	return sqlstore.New(db, d, opts), nil
}
