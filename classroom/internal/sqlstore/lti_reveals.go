package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/leaselab/playground/classroom"
)

// queueReveals queues, in the write that reveals them, the exercises
// revealed to a class that came from a course, for the queue's worker to
// pass on to the course's gradebook (ClaimLTIReveal): learnerID's
// standing, or every launched learner's when it is 0. A class not of a
// course queues nothing; a reveal already waiting is not queued twice.
func (s *DB) queueReveals(ctx context.Context, tx *sql.Tx, classID, learnerID int64, exercises []string) error {
	for _, ex := range exercises {
		if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_reveals (class_id, learner_id, exercise)
			SELECT class_id, ?, ? FROM lti_contexts WHERE class_id = ?
			ON CONFLICT (class_id, learner_id, exercise) DO NOTHING`), learnerID, ex, classID); err != nil {
			return err
		}
	}
	return nil
}

// ClaimLTIReveal implements classroom.LTIStore, as ClaimLTIScore claims
// a score: the claim's WHERE is checked again on the row it changes.
func (s *DB) ClaimLTIReveal(ctx context.Context, now time.Time, lease time.Duration) (*classroom.LTIRevealJob, error) {
	var job *classroom.LTIRevealJob
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		job = nil
		nowMS := now.UnixMilli()
		var j classroom.LTIRevealJob
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT id, class_id, learner_id, exercise FROM lti_reveals
			WHERE claimed_until <= ? ORDER BY id LIMIT 1`), nowMS).Scan(&j.ID, &j.ClassID, &j.LearnerID, &j.Exercise)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET claimed_until = ? WHERE id = ? AND claimed_until <= ?`),
			nowMS+lease.Milliseconds(), j.ID, nowMS)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // another replica took it
		}
		job = &j
		return nil
	})
	if err != nil {
		return nil, wrap("claim a reveal to pass on", err)
	}
	return job, nil
}

// FinishLTIReveal implements classroom.LTIStore.
func (s *DB) FinishLTIReveal(ctx context.Context, id int64) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		_, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM lti_reveals WHERE id = ?`), id)
		return err
	})
	return wrap("record the reveal passed on", err)
}
