package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Conditions on a row of classes, for the class limits. ? placeholders:
// hasLearner none; emptyLive the oldest created_at an empty class may have.
const (
	hasLearner = `EXISTS (SELECT 1 FROM learners l WHERE l.class_id = classes.id)`
	emptyLive  = `NOT ` + hasLearner + ` AND created_at >= ?`
)

// boundAddr keeps a creator's address to a sane length: it comes from the
// connection, but a caller may pass anything.
func boundAddr(a string) string {
	if len(a) > 64 {
		a = a[:64]
	}
	return a
}

// checkClassLimits refuses a new class with ELIMIT when the server holds
// Limits.MaxClasses classes in use, Limits.MaxEmptyClasses empty ones
// still within their EmptyRetention, or the creator's address has
// Limits.MaxClassesPerAddress live classes. Empty classes past their
// EmptyRetention count for nothing, even before Purge deletes them. It
// runs in the creating transaction, after LockClasses.
func (s *DB) checkClassLimits(ctx context.Context, tx *sql.Tx, creator string, now int64) error {
	lim := s.opts.Limits
	emptySince := now - s.opts.EmptyRetention.Milliseconds()
	var inUse, empty int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM classes WHERE `+hasLearner).Scan(&inUse); err != nil {
		return err
	}
	if inUse >= lim.MaxClasses {
		return classroom.Errorf(classroom.ELIMIT, "this server already holds %d classes in use, its limit (archived and expired ones count until they are deleted); ask its operator to raise it (--max-classes) or to delete old ones (playground classes)", lim.MaxClasses)
	}
	if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM classes WHERE `+emptyLive), emptySince).Scan(&empty); err != nil {
		return err
	}
	if empty >= lim.MaxEmptyClasses {
		return classroom.Errorf(classroom.ELIMIT, "this server already holds %d classes nobody has joined yet, its limit for those; each is deleted %s after it was made if nobody joins, so try again later, or ask its operator (--max-empty-classes)", lim.MaxEmptyClasses, days(s.opts.EmptyRetention))
	}
	if creator == "" {
		return nil
	}
	var mine int
	retained := now - s.opts.Retention.Milliseconds()
	if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM classes WHERE creator_addr = ? AND archived_at = 0 AND active_at >= ?
		AND (`+hasLearner+` OR created_at >= ?)`), creator, retained, emptySince).Scan(&mine); err != nil {
		return err
	}
	if mine >= lim.MaxClassesPerAddress {
		return classroom.Errorf(classroom.ELIMIT, "your address already has %d live classes, the most one address may; archive one you no longer need, or wait: a class nobody joins is deleted %s after it was made", lim.MaxClassesPerAddress, days(s.opts.EmptyRetention))
	}
	return nil
}

// days writes a retention as people say it: "1 day", "3 days", "12h".
func days(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "a day"
	case d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}
