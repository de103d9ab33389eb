package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/leaselab/playground/classroom"
)

// DB is a classroom.Store on a database/sql handle.
type DB struct {
	db      *sql.DB
	d       *Dialect
	opts    classroom.Options // with defaults
	now     func() time.Time
	hub     *Hub
	writeMu sync.Mutex

	// onClose runs before the database closes (the postgres listener);
	// afterClose after it (the SQLite data folder's lock).
	onClose, afterClose func()

	stopPurge context.CancelFunc
	purgeDone chan struct{}
}

var _ classroom.Store = (*DB)(nil)

// New wraps an open, migrated database and starts deleting expired
// classes every opts.PurgeEvery.
func New(db *sql.DB, d *Dialect, opts classroom.Options) *DB {
	opts = opts.WithDefaults()
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &DB{db: db, d: d, opts: opts, now: now, hub: NewHub(), stopPurge: func() {}}
	if opts.PurgeEvery > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopPurge, s.purgeDone = cancel, make(chan struct{})
		go s.purgeLoop(ctx, opts.PurgeEvery)
	}
	return s
}

// purgeLoop runs Purge every interval until ctx ends. A failure is
// retried at the next tick: nothing is lost by deleting late.
func (s *DB) purgeLoop(ctx context.Context, every time.Duration) {
	defer close(s.purgeDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = s.Purge(ctx)
		}
	}
}

// Hub is where changes are fanned out; the postgres listener publishes to
// it.
func (s *DB) Hub() *Hub { return s.hub }

// SQL returns the underlying handle, for tests and benchmarks.
func (s *DB) SQL() *sql.DB { return s.db }

// OnClose sets a function Close runs first.
func (s *DB) OnClose(f func()) { s.onClose = f }

// AfterClose sets a function Close runs last, once the database is
// closed.
func (s *DB) AfterClose(f func()) { s.afterClose = f }

// Close stops the purge and the listener, closes subscribers' channels,
// then the database, in that order so that no notification arrives at a
// closed hub and no query at a closed pool; then it runs AfterClose's
// function.
func (s *DB) Close() error {
	s.stopPurge()
	if s.purgeDone != nil {
		<-s.purgeDone
	}
	if s.onClose != nil {
		s.onClose()
	}
	s.hub.Close()
	err := s.db.Close()
	if s.afterClose != nil {
		s.afterClose()
	}
	return err
}

// Ping implements classroom.Store.
func (s *DB) Ping(ctx context.Context) error {
	var one int
	if err := s.db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return classroom.Unavailable("answer a query", err)
	}
	return nil
}

// Subscribe implements classroom.Store.
func (s *DB) Subscribe(ctx context.Context, classID int64) (<-chan classroom.Change, error) {
	return s.hub.Subscribe(ctx, classID)
}

// write runs f in a transaction and commits, then publishes the changes f
// reported. A retryable failure (a PostgreSQL deadlock) runs f again; an
// *classroom.Error from f is returned as it is.
func (s *DB) write(ctx context.Context, f func(tx *sql.Tx, changed func(classroom.Change)) error) error {
	if s.d.SerializeWrites {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
	}
	var err error
	for try := 0; try < 5; try++ {
		var changes []classroom.Change
		err = s.tx(ctx, func(tx *sql.Tx) error {
			return f(tx, func(c classroom.Change) { changes = append(changes, c) })
		}, &changes)
		if err == nil {
			if s.d.NotifyChannel == "" {
				for _, c := range changes {
					s.hub.Publish(c)
				}
			}
			return nil
		}
		if s.d.Retryable == nil || !s.d.Retryable(err) {
			return err
		}
	}
	return err
}

func (s *DB) tx(ctx context.Context, f func(tx *sql.Tx) error, changes *[]classroom.Change) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	if s.d.NotifyChannel != "" {
		for _, c := range *changes {
			// pg_notify in the transaction: delivered to every listener
			// on commit, and never for a rolled-back write.
			if _, err := tx.ExecContext(ctx, s.d.q(`SELECT pg_notify(?, ?)`), s.d.NotifyChannel, EncodeChange(c)); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// EncodeChange is a change as a notification payload.
func EncodeChange(c classroom.Change) string {
	return strconv.FormatInt(c.ClassID, 10) + " " + c.Kind + " " + strconv.FormatInt(c.LearnerID, 10)
}

// DecodeChange reads a notification payload.
func DecodeChange(p string) (classroom.Change, error) {
	var c classroom.Change
	_, err := fmt.Sscanf(p, "%d %s %d", &c.ClassID, &c.Kind, &c.LearnerID)
	return c, err
}

// pause calls Options.Pause, where a test set it, at a named point.
func (s *DB) pause(point string) {
	if s.opts.Pause != nil {
		s.opts.Pause(point)
	}
}

func (s *DB) nowMS() int64 { return s.now().UnixMilli() }

func fromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// wrap turns a database error into an EUNAVAILABLE error saying what
// could not be done (op reads "could not <op>"), keeping
// *classroom.Error values as they are: every error a store method returns
// is one, and the user is told to try again rather than shown a 500.
func wrap(op string, err error) error {
	var ce *classroom.Error
	if err == nil || errors.As(err, &ce) {
		return err
	}
	return classroom.Unavailable(op, err)
}
