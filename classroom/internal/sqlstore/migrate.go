package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migration is one schema change: the file NNNN_name.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the migrations in fsys in version order.
func Migrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	seen := map[int]string{}
	for _, name := range names {
		num, rest, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migration %s: version %d is also %s", name, v, other)
		}
		seen[v] = name
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(rest, ".sql"), SQL: string(data)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// Migrate brings the schema up to date in one transaction: it records each
// applied migration in schema_migrations, skips those already there, and
// refuses a database migrated by a newer binary rather than run against a
// schema it does not know. Running it again changes nothing.
func Migrate(ctx context.Context, db *sql.DB, d *Dialect) (applied []int, err error) {
	ms, err := Migrations(d.Migrations)
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if d.LockMigrations != "" {
		if _, err := tx.ExecContext(ctx, d.LockMigrations); err != nil {
			return nil, fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at BIGINT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	done := map[int]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("migrate: %w", err)
		}
		done[v] = true
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	known := map[int]bool{}
	for _, m := range ms {
		known[m.Version] = true
	}
	for v := range done {
		if !known[v] {
			return nil, fmt.Errorf("migrate: the database has schema version %d, which this binary does not know: run a newer one", v)
		}
	}
	for _, m := range ms {
		if done[m.Version] {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return nil, fmt.Errorf("migrate: %04d_%s: %w", m.Version, m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		applied = append(applied, m.Version)
	}
	return applied, tx.Commit()
}
