package engine

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"modernc.org/sqlite" // pure-Go SQLite driver
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
	create, insert, read, fenced, plain, claim, raise, clear string
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
		clear:  r.Replace(`DELETE FROM {t}`),
	}
}

// store is the run's record storage: one row in a real, in-memory SQLite
// database. A fenced write is one conditional UPDATE; the rows it changed
// decide whether it was accepted. The store is the run's handle on the
// database: once the run closed it, the database may serve another run
// (storePool), and the handle refuses every call.
type store struct {
	mu   sync.Mutex // the run's actors take turns; summaries read after
	db   *storeDB   // nil once closed
	pool *storePool // where the database goes back at the end, if kept
	key  string
	sql  statements
}

// storeDB is one in-memory SQLite database with its table and prepared
// statements. It talks to the SQLite driver's connection directly rather
// than through database/sql, whose pool keeps a goroutine per database:
// a storeDB outlives its run (see storePool) and must hold none.
type storeDB struct {
	conn  driver.Conn
	table string
	sql   statements
	// broken is set after an error: the database is closed at the end of
	// the run instead of being kept for another.
	broken bool

	read, fenced, plain, claim, raise, insert, clear sqlStmt
}

// sqlStmt is what the SQLite driver's prepared statements offer.
type sqlStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// row is the record as stored.
type row struct {
	Value int64
	Fence int64
	Owner string
}

// storePool keeps the databases of finished runs, emptied, for the next
// runs on the same table. Opening an in-memory SQLite database, creating
// its table and preparing its statements costs about 0.4 ms of CPU, most
// of a run's setup after its Raft group, and the web server pays it for
// every live session. A kept database is exactly what a new one would be:
// the same table, empty, with the run's one row inserted (the scenario's
// key and initial value, fence 0, no owner) and the same statements, so
// the timeline is the same byte for byte
// (TestReusedStoresGiveTheSameTimeline). An idle database holds no
// goroutine and about 50 KB of memory outside the Go heap (SQLite's own,
// sqlitemem.go).
//
// A RaftPool owns one, sized with it (as many databases per table as it
// keeps groups, RaftPool.stores) and closed with it. A run without a pool
// opens a database of its own and closes it at its end. A nil *storePool
// keeps nothing.
type storePool struct {
	mu      sync.Mutex
	byTable map[string][]*storeDB
	max     int // databases kept per table
	closed  bool
}

func newStorePool(max int) *storePool {
	return &storePool{byTable: map[string][]*storeDB{}, max: max}
}

// take returns a kept, empty database with table, or nil.
func (p *storePool) take(table string) *storeDB {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := p.byTable[table]
	if len(idle) == 0 {
		return nil
	}
	db := idle[len(idle)-1]
	idle[len(idle)-1] = nil
	p.byTable[table] = idle[:len(idle)-1]
	return db
}

// keep keeps an emptied database if the pool is open and has room.
func (p *storePool) keep(db *storeDB) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := p.byTable[db.table]
	if p.closed || len(idle) >= p.max {
		return false
	}
	p.byTable[db.table] = append(idle, db)
	return true
}

// close closes every kept database; from now on none is kept.
func (p *storePool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	for table, idle := range p.byTable {
		for _, db := range idle {
			errs = append(errs, db.closeConn())
		}
		delete(p.byTable, table)
	}
	return errors.Join(errs...)
}

// idle counts the databases kept for table.
func (p *storePool) idle(table string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byTable[table])
}

// sqliteDriver opens the stores' connections.
var sqliteDriver = &sqlite.Driver{}

var errStoreClosed = errors.New("the run's storage is closed")

// openStore opens the run's storage: a database kept in pool (nil: none)
// or a new one.
func openStore(pool *storePool, table, key string, initial int64) (*store, error) {
	if db := pool.take(table); db != nil {
		if err := db.fill(key, initial); err == nil {
			return &store{db: db, pool: pool, key: key, sql: db.sql}, nil
		}
		db.closeConn()
	}
	conn, err := sqliteDriver.Open(":memory:")
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	db := &storeDB{conn: conn, table: table, sql: sqlFor(table)}
	if err := db.init(); err != nil {
		db.closeConn()
		return nil, fmt.Errorf("storage: %w", err)
	}
	if err := db.fill(key, initial); err != nil {
		db.closeConn()
		return nil, fmt.Errorf("storage: %w", err)
	}
	return &store{db: db, pool: pool, key: key, sql: db.sql}, nil
}

// init creates the table and prepares the statements.
func (db *storeDB) init() error {
	ctx := context.Background()
	execer, ok := db.conn.(driver.ExecerContext)
	preparer, ok2 := db.conn.(driver.ConnPrepareContext)
	if !ok || !ok2 {
		return fmt.Errorf("the SQLite driver's connection (%T) cannot execute or prepare with a context", db.conn)
	}
	if _, err := execer.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", storePageSize), nil); err != nil {
		return err
	}
	if _, err := execer.ExecContext(ctx, db.sql.create, nil); err != nil {
		return err
	}
	var err error
	prep := func(q string) sqlStmt {
		if err != nil {
			return nil
		}
		var s driver.Stmt
		if s, err = preparer.PrepareContext(ctx, q); err != nil {
			return nil
		}
		st, ok := s.(sqlStmt)
		if !ok {
			s.Close()
			err = fmt.Errorf("the SQLite driver's statement (%T) cannot run with a context", s)
		}
		return st
	}
	q := db.sql
	db.read, db.fenced, db.plain, db.claim, db.raise = prep(q.read), prep(q.fenced), prep(q.plain), prep(q.claim), prep(q.raise)
	db.insert, db.clear = prep(q.insert), prep(q.clear)
	return err
}

// fill inserts a run's row into the empty table.
func (db *storeDB) fill(key string, initial int64) error {
	_, err := db.exec(db.insert, key, initial)
	return err
}

// exec runs a prepared statement and returns the rows it changed.
func (db *storeDB) exec(s sqlStmt, args ...any) (int64, error) {
	res, err := s.ExecContext(context.Background(), named(args))
	if err != nil {
		db.broken = true
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		db.broken = true
	}
	return n, err
}

// readRow reads the row of key.
func (db *storeDB) readRow(key string) (r row, err error) {
	rows, err := db.read.QueryContext(context.Background(), named([]any{key}))
	if err != nil {
		db.broken = true
		return r, err
	}
	defer rows.Close()
	vals := make([]driver.Value, 3)
	if err := rows.Next(vals); err != nil {
		if err == io.EOF {
			return r, sql.ErrNoRows
		}
		db.broken = true
		return r, err
	}
	var ok1, ok2, ok3 bool
	r.Value, ok1 = vals[0].(int64)
	r.Fence, ok2 = vals[1].(int64)
	r.Owner, ok3 = vals[2].(string)
	if !ok1 || !ok2 || !ok3 {
		db.broken = true
		return r, fmt.Errorf("unexpected row %v", vals)
	}
	return r, nil
}

// named turns arguments into the driver's positional values.
func named(args []any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// closeConn closes the statements and the database.
func (db *storeDB) closeConn() error {
	for _, s := range []sqlStmt{db.read, db.fenced, db.plain, db.claim, db.raise, db.insert, db.clear} {
		if s != nil {
			s.Close()
		}
	}
	return db.conn.Close()
}

// get reads the record.
func (st *store) get() (row, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return row{}, errStoreClosed
	}
	return st.db.readRow(st.key)
}

// run executes one of the database's statements, chosen by pick, for the
// run.
func (st *store) run(pick func(*storeDB) sqlStmt, args ...any) (int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return 0, errStoreClosed
	}
	return st.db.exec(pick(st.db), args...)
}

// write stores value. With fencing it passes token and the database refuses
// it when a higher token was stored; it returns the statement and the rows
// changed.
func (st *store) write(value, token int64, fencing bool) (query string, rows int64, err error) {
	if fencing {
		rows, err = st.run(func(db *storeDB) sqlStmt { return db.fenced }, value, token, st.key, token)
		return st.sql.fenced, rows, err
	}
	rows, err = st.run(func(db *storeDB) sqlStmt { return db.plain }, value, st.key)
	return st.sql.plain, rows, err
}

// raiseFence records token as the highest seen, unless a higher one was.
func (st *store) raiseFence(token int64) (query string, rows int64, err error) {
	rows, err = st.run(func(db *storeDB) sqlStmt { return db.raise }, token, st.key, token)
	return st.sql.raise, rows, err
}

// claimRow sets the owner if nobody owns the record yet.
func (st *store) claimRow(owner string) (query string, rows int64, err error) {
	rows, err = st.run(func(db *storeDB) sqlStmt { return db.claim }, owner, st.key)
	return st.sql.claim, rows, err
}

// close ends the run's use of the database. Emptied, it is kept for a
// later run on the same table (its storePool), unless a statement failed,
// there is no pool or it keeps enough already; then it is closed.
func (st *store) close() error {
	st.mu.Lock()
	db := st.db
	st.db = nil
	st.mu.Unlock()
	if db == nil {
		return nil
	}
	if !db.broken {
		if _, err := db.exec(db.clear); err == nil && st.pool.keep(db) {
			return nil
		}
	}
	return db.closeConn()
}
