package sqlstore

import (
	"context"
	"database/sql"

	"github.com/leaselab/playground/classroom"
)

var _ classroom.Operator = (*DB)(nil)

// ListClasses implements classroom.Operator.
func (s *DB) ListClasses(ctx context.Context) ([]classroom.ClassInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+classColumns+`, creator_addr,
		(SELECT COUNT(*) FROM learners l WHERE l.class_id = classes.id) FROM classes ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, wrap("list the classes", err)
	}
	defer rows.Close()
	var out []classroom.ClassInfo
	for rows.Next() {
		var info classroom.ClassInfo
		c, err := s.scanClass(scanWith{rows, []any{&info.Creator, &info.Learners}})
		if err != nil {
			return nil, wrap("list the classes", err)
		}
		info.Class = *c
		out = append(out, info)
	}
	return out, wrap("list the classes", rows.Err())
}

// scanWith scans classColumns and then extra columns into more.
type scanWith struct {
	r    rowScanner
	more []any
}

func (s scanWith) Scan(dest ...any) error { return s.r.Scan(append(dest, s.more...)...) }

// DeleteClass implements classroom.Operator.
func (s *DB) DeleteClass(ctx context.Context, code string) error {
	c, err := s.classByCode(ctx, s.db, code, "")
	if err != nil {
		return err
	}
	return wrap("delete the class", s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		// Learners, attempts and progress go with it (ON DELETE CASCADE).
		if _, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM classes WHERE id = ?`), c.ID); err != nil {
			return err
		}
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeDeleted})
		return nil
	}))
}

// ArchiveClass implements classroom.Operator.
func (s *DB) ArchiveClass(ctx context.Context, code string) (*classroom.Class, error) {
	c, err := s.classByCode(ctx, s.db, code, "")
	if err != nil {
		return nil, err
	}
	var out *classroom.Class
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		// Archiving twice keeps the first date.
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET archived_at = ? WHERE id = ? AND archived_at = 0`), s.nowMS(), c.ID); err != nil {
			return err
		}
		out, err = s.scanClass(tx.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`), c.ID))
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeArchive})
		return err
	})
	return out, wrap("archive the class", err)
}
