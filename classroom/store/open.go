// Package store opens the classroom store that the configuration names:
// PostgreSQL when a database URL is given, else a SQLite file in the data
// folder. It exists apart from package classroom because it imports both
// implementations, which themselves import classroom.
package store

import (
	"context"
	"strings"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/sqlite"
)

// DefaultDataDir is where the SQLite file goes when no folder is given.
const DefaultDataDir = "./playground-data"

// Config says where the store is.
type Config struct {
	// DatabaseURL (DATABASE_URL) selects PostgreSQL when it starts with
	// postgres:// or postgresql://.
	DatabaseURL string
	// DataDir (--data, PLAYGROUND_DATA) holds classroom.db otherwise.
	DataDir string
	// Options are the limits and the clock.
	Options classroom.Options
}

// Open opens and migrates the configured store. The caller closes it.
func Open(ctx context.Context, cfg Config) (classroom.Store, error) {
	if u := cfg.DatabaseURL; u != "" {
		if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
			return nil, classroom.Errorf(classroom.EINVALID, "DATABASE_URL: must start with postgres:// (leave it empty for the SQLite file in the data folder)")
		}
		return postgres.Open(ctx, u, cfg.Options)
	}
	dir := cfg.DataDir
	if dir == "" {
		dir = DefaultDataDir
	}
	return sqlite.Open(ctx, dir, cfg.Options)
}
