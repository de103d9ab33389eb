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

	"github.com/leaselab/playground/classroom"
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
	if known[rekeySince] {
		if err := rekeyLearners(ctx, tx, d); err != nil {
			return nil, fmt.Errorf("migrate: recompute learners' name keys: %w", err)
		}
	}
	return applied, tx.Commit()
}

// rekeySince is the migration that creates the learner_rekey table.
const rekeySince = 3

// rekeyLearners recomputes the name_key of the learners a migration listed
// in learner_rekey, class by class, since keys are unique per class. Two
// learners who joined under the old rule may now share a key (they look
// alike): both stay, the later one's key suffixed with its ID, and the
// rule holds for everyone who joins from now on. Keys are first moved
// out of the way, so that no interim key clashes with one still to move.
func rekeyLearners(ctx context.Context, tx *sql.Tx, d *Dialect) error {
	classes, err := int64s(ctx, tx, `SELECT DISTINCT l.class_id FROM learner_rekey r JOIN learners l ON l.id = r.learner_id ORDER BY l.class_id`)
	if err != nil {
		return err
	}
	for _, classID := range classes {
		rows, err := tx.QueryContext(ctx, d.q(`SELECT id, name FROM learners WHERE class_id = ? ORDER BY id`), classID)
		if err != nil {
			return err
		}
		type learner struct {
			id   int64
			name string
		}
		var ls []learner
		for rows.Next() {
			var l learner
			if err := rows.Scan(&l.id, &l.name); err != nil {
				rows.Close()
				return err
			}
			ls = append(ls, l)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, d.q(`UPDATE learners SET name_key = 'rekey:' || CAST(id AS TEXT) WHERE class_id = ?`), classID); err != nil {
			return err
		}
		used := map[string]bool{}
		for _, l := range ls {
			key := classroom.NameKey(l.name)
			if used[key] {
				key += "#" + strconv.FormatInt(l.id, 10)
			}
			used[key] = true
			if _, err := tx.ExecContext(ctx, d.q(`UPDATE learners SET name_key = ? WHERE id = ?`), key, l.id); err != nil {
				return err
			}
		}
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM learner_rekey`)
	return err
}

func int64s(ctx context.Context, tx *sql.Tx, query string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
