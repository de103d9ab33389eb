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
// course queues nothing; a reveal already waiting is not queued twice,
// and one given up on is queued anew.
func (s *DB) queueReveals(ctx context.Context, tx *sql.Tx, classID, learnerID int64, exercises []string) error {
	for _, ex := range exercises {
		if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_reveals (class_id, learner_id, exercise)
			SELECT class_id, ?, ? FROM lti_contexts WHERE class_id = ?
			ON CONFLICT (class_id, learner_id, exercise) DO UPDATE SET tries = 0, next_at = 0, failed_at = 0, last_error = ''
			WHERE lti_reveals.failed_at <> 0`), learnerID, ex, classID); err != nil {
			return err
		}
	}
	return nil
}

// retryReveals queues anew, in a write of the teacher's to the class's
// settings, the class's reveals the queue gave up on: the teacher acting
// on the class again has them tried again.
func (s *DB) retryReveals(ctx context.Context, tx *sql.Tx, classID int64) error {
	_, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET tries = 0, next_at = 0, failed_at = 0, last_error = ''
		WHERE class_id = ? AND failed_at <> 0`), classID)
	return err
}

// ClaimLTIReveal implements classroom.LTIStore, as ClaimLTIScore claims
// a score: the claim's WHERE is checked again on the row it changes.
func (s *DB) ClaimLTIReveal(ctx context.Context, now time.Time, lease time.Duration) (*classroom.LTIRevealJob, error) {
	var job *classroom.LTIRevealJob
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		job = nil
		nowMS := now.UnixMilli()
		var j classroom.LTIRevealJob
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT id, class_id, learner_id, exercise, tries FROM lti_reveals
			WHERE failed_at = 0 AND next_at <= ? AND claimed_until <= ? ORDER BY id LIMIT 1`), nowMS, nowMS).Scan(&j.ID, &j.ClassID, &j.LearnerID, &j.Exercise, &j.Tries)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		until := nowMS + lease.Milliseconds()
		res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET claimed_until = ?, tries = tries + 1
			WHERE id = ? AND failed_at = 0 AND claimed_until <= ?`), until, j.ID, nowMS)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // another replica took it
		}
		j.Tries++
		j.ClaimedUntil = fromMS(until)
		job = &j
		return nil
	})
	if err != nil {
		return nil, wrap("claim a reveal to pass on", err)
	}
	return job, nil
}

// RenewLTIReveal implements classroom.LTIStore: the claim is extended
// only while it is still the one job holds, so a replica whose claim
// ran out and was taken by another learns so and stops.
func (s *DB) RenewLTIReveal(ctx context.Context, job *classroom.LTIRevealJob, now time.Time, lease time.Duration) (bool, error) {
	renewed := false
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		renewed = false
		until := now.UnixMilli() + lease.Milliseconds()
		res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET claimed_until = ? WHERE id = ? AND claimed_until = ?`),
			until, job.ID, job.ClaimedUntil.UnixMilli())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		job.ClaimedUntil, renewed = fromMS(until), true
		return nil
	})
	if err != nil {
		return false, wrap("renew the claim on a reveal", err)
	}
	return renewed, nil
}

// FailLTIReveal implements classroom.LTIStore: only while job's claim
// stands, so a worker whose claim ran out and was taken cannot count the
// other replica's try as failed.
func (s *DB) FailLTIReveal(ctx context.Context, job *classroom.LTIRevealJob, lastError string, retryAt time.Time) error {
	if len(lastError) > 500 {
		lastError = lastError[:500]
	}
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		var res sql.Result
		var err error
		if retryAt.IsZero() {
			res, err = tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET failed_at = ?, last_error = ?, claimed_until = 0 WHERE id = ? AND claimed_until = ?`),
				s.nowMS(), lastError, job.ID, job.ClaimedUntil.UnixMilli())
		} else {
			res, err = tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET next_at = ?, last_error = ?, claimed_until = 0 WHERE id = ? AND claimed_until = ?`),
				retryAt.UnixMilli(), lastError, job.ID, job.ClaimedUntil.UnixMilli())
		}
		return rowsChanged(res, err, job.ClassID, changed)
	})
	return wrap("record the reveal's failure", err)
}

// FinishLTIReveal implements classroom.LTIStore: only while job's claim
// stands, so a worker whose claim ran out and was taken cannot take the
// reveal from the replica now passing it on.
func (s *DB) FinishLTIReveal(ctx context.Context, job *classroom.LTIRevealJob) error {
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		res, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM lti_reveals WHERE id = ? AND claimed_until = ?`), job.ID, job.ClaimedUntil.UnixMilli())
		return rowsChanged(res, err, job.ClassID, changed)
	})
	return wrap("record the reveal passed on", err)
}
