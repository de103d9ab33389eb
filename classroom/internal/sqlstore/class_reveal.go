package sqlstore

import (
	"context"
	"database/sql"
	"slices"
)

// markRevealedToClass records that the answers to exercises were shown
// to learners of the class (the teacher's reveal to the whole class,
// Settings.Revealed): learnerID's, or every learner's when it is 0. A
// learner who never answered gets a progress row with no tries, revealed
// at now, as "show me" before any answer leaves one: every view then
// says "revealed" and a score of 0 rather than "not tried", for an
// exercise whose credit has ended for them. A row without a time of its
// own (first_at and last_at 0) moves no learner's last activity. A row
// already revealed keeps its time.
func (s *DB) markRevealedToClass(ctx context.Context, tx *sql.Tx, classID, learnerID int64, exercises []string, now int64) error {
	for _, ex := range exercises {
		q := `INSERT INTO progress (learner_id, exercise, class_id, tries, correct, tries_to_correct, last_variant, first_at, last_at, revealed_at)
			SELECT id, ?, class_id, 0, ?, 0, 0, 0, 0, ? FROM learners WHERE class_id = ?`
		args := []any{ex, false, now, classID}
		if learnerID != 0 {
			q += ` AND id = ?`
			args = append(args, learnerID)
		}
		q += ` ON CONFLICT (learner_id, exercise) DO UPDATE SET revealed_at = excluded.revealed_at WHERE progress.revealed_at = 0`
		if _, err := tx.ExecContext(ctx, s.d.q(q), args...); err != nil {
			return err
		}
	}
	return nil
}

// newlyRevealed lists the exercises revealed in now that were not in was.
func newlyRevealed(was, now []string) []string {
	var out []string
	for _, ex := range now {
		if !slices.Contains(was, ex) {
			out = append(out, ex)
		}
	}
	return out
}
