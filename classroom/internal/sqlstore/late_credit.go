package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"

	"github.com/leaselab/playground/classroom"
)

// CreditLate implements classroom.Store: the progress row keeps the
// teacher's word (late_credit), which Record and rescoreLearner read, so
// the credit holds for attempts still to come and survives a regrade.
func (s *DB) CreditLate(ctx context.Context, code, key string, learnerID int64, exercise, rule string, on bool, verdicts []classroom.Verdict) (*classroom.ScoreChange, error) {
	c, now, by, err := s.rescoreFor(ctx, code, key, exercise, rule, verdicts)
	if err != nil {
		return nil, err
	}
	var change *classroom.ScoreChange
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		var lateAt int64
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT p.late_at FROM progress p JOIN learners l ON l.id = p.learner_id
			WHERE p.learner_id = ? AND p.exercise = ? AND l.class_id = ?`), learnerID, exercise, c.ID).Scan(&lateAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return classroom.Errorf(classroom.ENOTFOUND, "learner %d of class %s has not answered %s", learnerID, c.Code, classroom.Excerpt(exercise, classroom.ExcerptLen))
		case err != nil:
			return err
		case lateAt == 0:
			return classroom.Errorf(classroom.EINVALID, "exercise: learner %d made no late attempt at %s, so there is no late work to credit", learnerID, exercise)
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE progress SET late_credit = ? WHERE learner_id = ? AND exercise = ?`),
			on, learnerID, exercise); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, s.d.q(`SELECT `+attemptColumns+`
			FROM attempts a JOIN learners l ON l.id = a.learner_id
			WHERE a.learner_id = ? AND a.exercise = ? ORDER BY a.try`), learnerID, exercise)
		if err != nil {
			return err
		}
		var as []classroom.ClassAttempt
		for rows.Next() {
			a, err := scanAttempt(rows)
			if err != nil {
				rows.Close()
				return err
			}
			as = append(as, a)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// late_at is set by a recorded attempt, so there is one.
		change, err = s.rescoreLearner(ctx, tx, as, rule, by)
		if err != nil {
			return err
		}
		if change != nil {
			change.ClassID, change.ClassCode, change.At = c.ID, c.Code, fromMS(now)
		}
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeAttempt, LearnerID: learnerID})
		return s.touch(ctx, tx, c.ID, now, 0)
	})
	if err != nil {
		return nil, wrap("credit late work", err)
	}
	return change, nil
}

// LiftLate implements classroom.Store.
func (s *DB) LiftLate(ctx context.Context, code, key string, until time.Time) ([]classroom.LearnerExercise, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	upTo := int64(math.MaxInt64)
	if !until.IsZero() {
		upTo = until.UnixMilli()
	}
	var lifted []classroom.LearnerExercise
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		lifted = lifted[:0]
		rows, err := tx.QueryContext(ctx, s.d.q(`SELECT DISTINCT learner_id, exercise FROM attempts
			WHERE class_id = ? AND late AND at <= ? ORDER BY learner_id, exercise`), c.ID, upTo)
		if err != nil {
			return err
		}
		for rows.Next() {
			var le classroom.LearnerExercise
			if err := rows.Scan(&le.LearnerID, &le.Exercise); err != nil {
				rows.Close()
				return err
			}
			lifted = append(lifted, le)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(lifted) == 0 {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE attempts SET late = ? WHERE class_id = ? AND late AND at <= ?`), false, c.ID, upTo); err != nil {
			return err
		}
		for _, le := range lifted {
			// Late from the first attempt still late, or not at all.
			if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE progress SET late_at = COALESCE(
					(SELECT MIN(at) FROM attempts WHERE learner_id = ? AND exercise = ? AND late), 0)
				WHERE learner_id = ? AND exercise = ?`), le.LearnerID, le.Exercise, le.LearnerID, le.Exercise); err != nil {
				return err
			}
			changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeAttempt, LearnerID: le.LearnerID})
		}
		return nil
	})
	if err != nil {
		return nil, wrap("lift late marks", err)
	}
	return lifted, nil
}
