package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/leaselab/playground/classroom"
)

// scoreChanged reports, in the write that changed the score id, a
// ChangeGrades for the classes whose grades panel counts it: its class,
// or, for one queued before scores named their class that the upgrade
// matched to none (class_id 0), every class linked to its line item,
// whose panel counts it as unmatched.
func (s *DB) scoreChanged(ctx context.Context, tx *sql.Tx, id int64, changed func(classroom.Change)) error {
	var classID int64
	var lineItem string
	err := tx.QueryRowContext(ctx, s.d.q(`SELECT class_id, lineitem_url FROM lti_scores WHERE id = ?`), id).Scan(&classID, &lineItem)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	return s.ownerChanged(ctx, tx, classID, lineItem, changed)
}

// ownerChanged reports a ChangeGrades for the classes whose grades panel
// counts a score of the class on the line item: the class, or, for a
// score the upgrade matched to none (class 0), every class linked to
// the line item, whose panel counts it as unmatched.
func (s *DB) ownerChanged(ctx context.Context, tx *sql.Tx, classID int64, lineItem string, changed func(classroom.Change)) error {
	if classID != 0 {
		changed(classroom.Change{ClassID: classID, Kind: classroom.ChangeGrades})
		return nil
	}
	return s.linkedChanged(ctx, tx, lineItem, changed)
}

// linkedChanged reports a ChangeGrades for every class linked to the
// line item.
func (s *DB) linkedChanged(ctx context.Context, tx *sql.Tx, lineItem string, changed func(classroom.Change)) error {
	rows, err := tx.QueryContext(ctx, s.d.q(`SELECT DISTINCT class_id FROM lti_links WHERE lineitem_url = ?`), lineItem)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var classID int64
		if err := rows.Scan(&classID); err != nil {
			return err
		}
		changed(classroom.Change{ClassID: classID, Kind: classroom.ChangeGrades})
	}
	return rows.Err()
}

// gradesChanged reports a ChangeGrades for the class when n rows of its
// queue changed.
func gradesChanged(classID, n int64, changed func(classroom.Change)) {
	if n > 0 {
		changed(classroom.Change{ClassID: classID, Kind: classroom.ChangeGrades})
	}
}

// rowsChanged reports a ChangeGrades for the class when the statement
// whose result res is changed a row, and returns the statement's error.
func rowsChanged(res sql.Result, err error, classID int64, changed func(classroom.Change)) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	gradesChanged(classID, n, changed)
	return nil
}

// overtaken reports, in the write that queues a newer score of the user
// on the line item for the class, a ChangeGrades for the other classes
// whose panel counts an older score of theirs there (the user in two
// courses whose links grade into one line item): one still waiting is
// superseded, one given up is the course's problem no more, and one the
// upgrade matched to no class (class_id 0) is unmatched no more, for
// every class linked to the line item. The class itself is told of the
// score it queued.
func (s *DB) overtaken(ctx context.Context, tx *sql.Tx, lineItem, sub string, classID int64, changed func(classroom.Change)) error {
	rows, err := tx.QueryContext(ctx, s.d.q(`SELECT DISTINCT class_id FROM lti_scores
		WHERE lineitem_url = ? AND user_sub = ? AND class_id <> ? AND outcome IN ('', 'failed')`), lineItem, sub, classID)
	if err != nil {
		return err
	}
	var owners []int64
	for rows.Next() {
		var owner int64
		if err := rows.Scan(&owner); err != nil {
			rows.Close()
			return err
		}
		owners = append(owners, owner)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, owner := range owners {
		if err := s.ownerChanged(ctx, tx, owner, lineItem, changed); err != nil {
			return err
		}
	}
	return nil
}
