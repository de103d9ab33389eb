package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Record implements classroom.Store.
//
// The progress row is bumped before the attempt is inserted: its upsert
// both counts the try and, on PostgreSQL, locks the learner's row for that
// exercise, so concurrent checks of one exercise get distinct try numbers
// and cannot pass the attempt limit together.
func (s *DB) Record(ctx context.Context, token string, a classroom.Attempt) (*classroom.Attempt, error) {
	if err := classroom.CheckAttempt(&a); err != nil {
		return nil, err
	}
	if err := classroom.CheckMistake(&a); err != nil {
		return nil, err
	}
	if a.FormatError != "" {
		// An unreadable answer costs no try, so it is not stored either:
		// storing it would let a client fill the database outside the
		// attempt limit. The session is still checked.
		l, err := s.learnerBySession(ctx, s.db, token, "")
		if err != nil {
			return nil, err
		}
		now := s.nowMS()
		if err := s.classOpen(ctx, s.db, l.ClassID, now); err != nil {
			return nil, err
		}
		a.ClassID, a.LearnerID, a.Correct, a.Try, a.At = l.ClassID, l.ID, false, 0, fromMS(now)
		return &a, nil
	}
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		// Shared lock: a concurrent RemoveLearner waits for this attempt
		// rather than deadlocking with it over the progress row.
		l, err := s.learnerBySession(ctx, tx, token, s.d.ShareRow)
		if err != nil {
			return err
		}
		a.ClassID, a.LearnerID = l.ClassID, l.ID
		now := s.nowMS()
		cl, err := s.openClass(ctx, tx, l.ClassID, now)
		if err != nil {
			return err
		}
		// Late by the store's clock and the class's deadline: the client
		// has no say in it.
		a.Late = cl.Settings.Late(fromMS(now))
		a.At = fromMS(now)
		firstCorrect := 0
		if a.Correct {
			firstCorrect = 1
		}
		// The upsert returns the row as it was before this attempt, but
		// for its tries: where the learner stood, which the score is
		// worked out from.
		var revealedAt int64
		var best float64
		var lateCredit bool
		if err := tx.QueryRowContext(ctx, s.d.q(`INSERT INTO progress
			(learner_id, exercise, class_id, tries, correct, tries_to_correct, last_variant, first_at, last_at, open_answer)
			VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (learner_id, exercise) DO UPDATE SET
				tries = progress.tries + 1,
				correct = progress.correct OR excluded.correct,
				tries_to_correct = CASE WHEN progress.tries_to_correct = 0 AND excluded.correct
					THEN progress.tries + 1 ELSE progress.tries_to_correct END,
				last_variant = excluded.last_variant,
				first_at = CASE WHEN progress.first_at = 0 THEN excluded.first_at ELSE progress.first_at END,
				last_at = excluded.last_at,
				open_answer = progress.open_answer OR excluded.open_answer
			RETURNING tries, revealed_at, best, late_credit`),
			l.ID, a.Exercise, l.ClassID, a.Correct, firstCorrect, a.Variant, now, now, !a.Graded).Scan(&a.Try, &revealedAt, &best, &lateCredit); err != nil {
			return err
		}
		if a.Try > s.opts.Limits.MaxAttemptsPerExercise {
			return classroom.Errorf(classroom.ELIMIT, "exercise %s: you have used all %d attempts this server keeps; ask your teacher", a.Exercise, s.opts.Limits.MaxAttemptsPerExercise)
		}
		if err := s.chargeStorage(ctx, tx, l.ID, l.ClassID, a.Exercise, a.Answer); err != nil {
			return err
		}
		// A late attempt stays marked late; the teacher's credit for the
		// learner's late work on this exercise lets it score. An answer
		// the teacher showed the whole class was shown to this learner.
		classReveal := cl.Settings.RevealedToClass(a.Exercise)
		before := classroom.Before{Revealed: revealedAt > 0 || classReveal, Late: classroom.HeldLate(a.Late, lateCredit)}
		if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*), COALESCE(SUM(CASE WHEN correct THEN 0 ELSE 1 END), 0)
			FROM attempts WHERE learner_id = ? AND exercise = ? AND graded`), l.ID, a.Exercise).Scan(&before.Tries, &before.Wrong); err != nil {
			return err
		}
		if a.StopAfterWrong > 0 && a.Graded && before.Wrong >= a.StopAfterWrong && before.Wrong == before.Tries {
			// Refused: the write rolls back, this attempt's try with it.
			return &classroom.Error{Code: classroom.ECONFLICT, Err: classroom.ErrTriesUsed,
				Message: fmt.Sprintf("exercise: the %d tries %s takes are used", a.StopAfterWrong, a.Exercise)}
		}
		a.AfterReveal = before.Revealed
		ran, err := s.notedRuns(ctx, tx, l.ID, []string{a.Exercise})
		if err != nil {
			return err
		}
		a.AfterRun = ran[a.Exercise]
		a.Score = 0
		if a.Graded {
			a.Score = classroom.AttemptScore(a.Rule, a.Share, a.Correct, before)
		}
		revealNow, lateNow := int64(0), int64(0)
		if a.Reveals || classReveal {
			revealNow = now
		}
		if a.Late {
			lateNow = now
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE progress SET
				best = CASE WHEN best < ? THEN ? ELSE best END,
				solved = solved OR ?,
				revealed_at = CASE WHEN revealed_at = 0 THEN ? ELSE revealed_at END,
				late_at = CASE WHEN late_at = 0 THEN ? ELSE late_at END
			WHERE learner_id = ? AND exercise = ?`),
			a.Score, a.Score, classroom.Solves(a.Correct, before), revealNow, lateNow, l.ID, a.Exercise); err != nil {
			return err
		}
		if a.Score > best {
			a.BestChange = &classroom.ScoreChange{ClassID: l.ClassID, LearnerID: l.ID, Exercise: a.Exercise,
				Score: a.Score, Previous: best, At: a.At}
		}
		// Every attempt recorded now was read with the letters its
		// variant showed: the column's default is for rows kept before.
		a.AnswerFormat = classroom.AnswerShownLetters
		if err := tx.QueryRowContext(ctx, s.d.q(`INSERT INTO attempts
			(class_id, learner_id, exercise, try, variant, answer, correct, graded, feedback, mistake, parsed, at, score, after_reveal, late, answer_format, after_run)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			l.ClassID, l.ID, a.Exercise, a.Try, a.Variant, a.Answer, a.Correct, a.Graded, a.Feedback, a.Mistake, a.Parsed, now,
			a.Score, a.AfterReveal, a.Late, a.AnswerFormat, a.AfterRun).Scan(&a.ID); err != nil {
			return err
		}
		changed(classroom.Change{ClassID: l.ClassID, Kind: classroom.ChangeAttempt, LearnerID: l.ID})
		return s.touch(ctx, tx, l.ClassID, now, activityEvery)
	})
	if err != nil {
		return nil, wrap("record the answer", err)
	}
	return &a, nil
}

// activityEvery is how stale a class's active_at may get before an answer
// moves it: retention is counted in months, so an hour is exact enough,
// and a busy class does not rewrite its row on every answer.
const activityEvery = time.Hour

// classOpen refuses an answer to a class that is archived or expired.
func (s *DB) classOpen(ctx context.Context, q querier, classID, now int64) error {
	_, err := s.openClass(ctx, q, classID, now)
	return err
}

// openClass reads the class an answer goes to, refusing it if archived
// or expired.
func (s *DB) openClass(ctx context.Context, q querier, classID, now int64) (*classroom.Class, error) {
	c, err := s.scanClass(q.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`), classID))
	if err != nil {
		return nil, wrap("read the class", err)
	}
	return c, c.ClosedError(fromMS(now), "answers")
}
