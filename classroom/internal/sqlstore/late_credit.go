package sqlstore

import (
	"context"
	"database/sql"
	"errors"

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
