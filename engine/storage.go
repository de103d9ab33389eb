package engine

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// Storage tables. records is the default: a record with a value, a fence
// and an owner. seats is the notes' seat hold: the row is a seat, and its
// owner column is hold_id.
const (
	TableRecords = "records"
	TableSeats   = "seats"
)

// storageTables lists the tables a scenario can choose, in order.
var storageTables = []string{TableRecords, TableSeats}

// statements is the SQL the storage runs on one table. Events carry these
// exact statements.
type statements struct {
	create, insert, read, fenced, plain, claim, raise string
}

// sqlFor builds the statements of a table: its key column and the column a
// claim sets.
func sqlFor(table string) statements {
	key, owner := "key", "owner"
	if table == TableSeats {
		key, owner = "seat", "hold_id"
	}
	r := strings.NewReplacer("{t}", table, "{key}", key, "{owner}", owner)
	return statements{
		create: r.Replace(`CREATE TABLE {t} ({key} TEXT PRIMARY KEY, value INTEGER NOT NULL, fence INTEGER NOT NULL DEFAULT 0, {owner} TEXT)`),
		insert: r.Replace(`INSERT INTO {t} ({key}, value) VALUES (?, ?)`),
		read:   r.Replace(`SELECT value, fence, COALESCE({owner}, '') FROM {t} WHERE {key} = ?`),
		fenced: r.Replace(`UPDATE {t} SET value = ?, fence = ? WHERE {key} = ? AND fence <= ?`),
		plain:  r.Replace(`UPDATE {t} SET value = ? WHERE {key} = ?`),
		claim:  r.Replace(`UPDATE {t} SET {owner} = ? WHERE {key} = ? AND {owner} IS NULL`),
		raise:  r.Replace(`UPDATE {t} SET fence = ? WHERE {key} = ? AND fence <= ?`),
	}
}

// store is the run's record storage: one row in a real, in-memory SQLite
// database. A fenced write is one conditional UPDATE; the rows it changed
// decide whether it was accepted.
type store struct {
	db  *sql.DB
	key string
	ctx context.Context
	sql statements

	read, fenced, plain, claim, raise *sql.Stmt
}

// row is the record as stored.
type row struct {
	Value int64
	Fence int64
	Owner string
}

func openStore(table, key string, initial int64) (*store, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	// Every connection to ":memory:" is its own database: keep exactly one.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	st := &store{db: db, key: key, ctx: context.Background(), sql: sqlFor(table)}
	if err := st.init(initial); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: %w", err)
	}
	return st, nil
}

func (st *store) init(initial int64) error {
	if _, err := st.db.ExecContext(st.ctx, st.sql.create); err != nil {
		return err
	}
	if _, err := st.db.ExecContext(st.ctx, st.sql.insert, st.key, initial); err != nil {
		return err
	}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = st.db.PrepareContext(st.ctx, q)
		return s
	}
	q := st.sql
	st.read, st.fenced, st.plain, st.claim, st.raise = prep(q.read), prep(q.fenced), prep(q.plain), prep(q.claim), prep(q.raise)
	return err
}

// get reads the record.
func (st *store) get() (row, error) {
	var r row
	err := st.read.QueryRowContext(st.ctx, st.key).Scan(&r.Value, &r.Fence, &r.Owner)
	return r, err
}

// write stores value. With fencing it passes token and the database refuses
// it when a higher token was stored; it returns the statement and the rows
// changed.
func (st *store) write(value, token int64, fencing bool) (query string, rows int64, err error) {
	var res sql.Result
	if fencing {
		query = st.sql.fenced
		res, err = st.fenced.ExecContext(st.ctx, value, token, st.key, token)
	} else {
		query = st.sql.plain
		res, err = st.plain.ExecContext(st.ctx, value, st.key)
	}
	if err != nil {
		return query, 0, err
	}
	rows, err = res.RowsAffected()
	return query, rows, err
}

// raiseFence records token as the highest seen, unless a higher one was.
func (st *store) raiseFence(token int64) (query string, rows int64, err error) {
	res, err := st.raise.ExecContext(st.ctx, token, st.key, token)
	if err != nil {
		return st.sql.raise, 0, err
	}
	rows, err = res.RowsAffected()
	return st.sql.raise, rows, err
}

// claimRow sets the owner if nobody owns the record yet.
func (st *store) claimRow(owner string) (query string, rows int64, err error) {
	res, err := st.claim.ExecContext(st.ctx, owner, st.key)
	if err != nil {
		return st.sql.claim, 0, err
	}
	rows, err = res.RowsAffected()
	return st.sql.claim, rows, err
}

func (st *store) close() error {
	for _, s := range []*sql.Stmt{st.read, st.fenced, st.plain, st.claim, st.raise} {
		if s != nil {
			s.Close()
		}
	}
	return st.db.Close()
}
