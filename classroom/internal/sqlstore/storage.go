package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/leaselab/playground/classroom"
)

// attemptOverhead is what a stored attempt costs besides its answer: its
// row, its feedback and its indexes, roughly.
const attemptOverhead = 64

// chargeStorage counts an attempt's bytes against its learner's and its
// class's storage budgets (Limits.MaxBytesPerLearner, MaxBytesPerClass),
// in the recording transaction, or refuses it with ELIMIT saying which is
// full. The attempt limit per exercise bounds the rows; this bounds the
// bytes, which long answers to many exercises would otherwise fill.
//
// A learner's bytes are kept on their progress rows, whose row this
// transaction has already locked (the learner's own row is only
// share-locked by concurrent attempts, and raising that lock would
// deadlock them); the class's on its row, locked after the progress row
// as every writer does.
func (s *DB) chargeStorage(ctx context.Context, tx *sql.Tx, learnerID, classID int64, exercise, answer string) error {
	n := int64(len(answer) + attemptOverhead)
	lim := s.opts.Limits
	var mine, class int64
	if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE progress SET stored_bytes = stored_bytes + ? WHERE learner_id = ? AND exercise = ?`), n, learnerID, exercise); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COALESCE(SUM(stored_bytes), 0) FROM progress WHERE learner_id = ?`), learnerID).Scan(&mine); err != nil {
		return err
	}
	if mine > lim.MaxBytesPerLearner {
		return classroom.Errorf(classroom.ELIMIT, "your answers are full: this server keeps %s of answers for one learner, and yours take %s; ask your teacher", size(lim.MaxBytesPerLearner), size(mine-n))
	}
	if err := tx.QueryRowContext(ctx, s.d.q(`UPDATE classes SET stored_bytes = stored_bytes + ? WHERE id = ? RETURNING stored_bytes`), n, classID).Scan(&class); err != nil {
		return err
	}
	if class > lim.MaxBytesPerClass {
		return classroom.Errorf(classroom.ELIMIT, "this class is full: this server keeps %s of answers for one class, and they are all taken; ask your teacher (who can export the answers and start a new class)", size(lim.MaxBytesPerClass))
	}
	return nil
}

// size writes a number of bytes as people read it.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
