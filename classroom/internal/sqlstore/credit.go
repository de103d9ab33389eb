package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/leaselab/playground/classroom"
)

// attemptColumns are an attempt's columns over attempts a, with the
// learner's name from learners l.
const attemptColumns = `a.id, a.learner_id, l.name, a.exercise, a.variant, a.answer, a.correct, a.graded,
	a.feedback, a.mistake, a.parsed, a.at, a.try, a.score, a.after_reveal, a.late, a.answer_format, a.after_run`

func scanAttempt(r rowScanner) (classroom.ClassAttempt, error) {
	var a classroom.ClassAttempt
	var at int64
	err := r.Scan(&a.ID, &a.LearnerID, &a.LearnerName, &a.Exercise, &a.Variant, &a.Answer, &a.Correct, &a.Graded,
		&a.Feedback, &a.Mistake, &a.Parsed, &at, &a.Try, &a.Score, &a.AfterReveal, &a.Late, &a.AnswerFormat, &a.AfterRun)
	a.At = fromMS(at)
	return a, err
}

// Attempts implements classroom.Store.
func (s *DB) Attempts(ctx context.Context, code, key, exercise string) ([]classroom.ClassAttempt, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	if len(exercise) > classroom.MaxExerciseLen {
		return nil, classroom.Errorf(classroom.EINVALID, "exercise: must be at most %d characters", classroom.MaxExerciseLen)
	}
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT `+attemptColumns+`
		FROM attempts a JOIN learners l ON l.id = a.learner_id
		WHERE a.class_id = ? AND (? = '' OR a.exercise = ?) ORDER BY a.id`), c.ID, exercise, exercise)
	if err != nil {
		return nil, wrap("read the attempts", err)
	}
	defer rows.Close()
	out := []classroom.ClassAttempt{}
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, wrap("read the attempts", err)
		}
		a.ClassID = c.ID
		out = append(out, a)
	}
	return out, wrap("read the attempts", rows.Err())
}

// Rescore implements classroom.Store. It walks each learner's attempts
// in try order as Record met them: the same AttemptScore, with where the
// learner stood before each, and whether the answer had been shown then
// as it was recorded (what a learner saw stays seen).
func (s *DB) Rescore(ctx context.Context, code, key, exercise, rule string, learners []int64, verdicts []classroom.Verdict) ([]classroom.ScoreChange, error) {
	if learners != nil && len(learners) == 0 {
		return nil, nil
	}
	c, now, by, err := s.rescoreFor(ctx, code, key, exercise, rule, verdicts)
	if err != nil {
		return nil, err
	}
	where, args := `a.class_id = ? AND a.exercise = ?`, []any{c.ID, exercise}
	if learners != nil {
		marks := make([]string, len(learners))
		for i, id := range learners {
			marks[i], args = "?", append(args, id)
		}
		where += ` AND a.learner_id IN (` + strings.Join(marks, ", ") + `)`
	}
	var changes []classroom.ScoreChange
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		changes = changes[:0]
		rows, err := tx.QueryContext(ctx, s.d.q(`SELECT `+attemptColumns+`
			FROM attempts a JOIN learners l ON l.id = a.learner_id
			WHERE `+where+` ORDER BY a.learner_id, a.try`), args...)
		if err != nil {
			return err
		}
		var all []classroom.ClassAttempt
		for rows.Next() {
			a, err := scanAttempt(rows)
			if err != nil {
				rows.Close()
				return err
			}
			all = append(all, a)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j].LearnerID == all[i].LearnerID {
				j++
			}
			ch, err := s.rescoreLearner(ctx, tx, all[i:j], rule, by)
			if err != nil {
				return err
			}
			if ch != nil {
				ch.ClassID, ch.ClassCode, ch.At = c.ID, c.Code, fromMS(now)
				changes = append(changes, *ch)
				changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeAttempt, LearnerID: ch.LearnerID})
			}
			i = j
		}
		return s.touch(ctx, tx, c.ID, now, 0)
	})
	if err != nil {
		return nil, wrap("regrade", err)
	}
	return changes, nil
}

// rescoreLearner rescores one learner's attempts at an exercise, in try
// order, and their progress; it returns the change of their score as
// every view shows it (classroom.BestScore: a teacher's score of a
// revealed exercise stands while it is not solved), which is what a
// gradebook passback sends on.
func (s *DB) rescoreLearner(ctx context.Context, tx *sql.Tx, as []classroom.ClassAttempt, rule string, by map[int64]classroom.Verdict) (*classroom.ScoreChange, error) {
	var before classroom.Before
	p, err := s.progressOf(ctx, tx, as[0].LearnerID, as[0].Exercise)
	if err != nil {
		return nil, err
	}
	old, _ := classroom.BestScore(p)
	lateCredit := p.LateCredit
	best, firstCorrect, solved, correct := 0.0, 0, false, false
	for i := range as {
		a := &as[i]
		if !a.Graded {
			continue
		}
		share := 0.0
		if a.Correct {
			share = 1
		}
		if v, ok := by[a.ID]; ok {
			a.Correct, share, a.Mistake, a.Parsed = v.Correct, v.Share, v.Mistake, v.Parsed
			if a.Correct {
				a.Mistake = ""
			}
		} else if (rule == classroom.RulePartial || rule == classroom.RuleShare) && (a.Score > 0 || !a.Late) {
			// As recorded, having no new verdict; a late attempt recorded
			// without credit earned 0, which says nothing of its share.
			share = a.Score
		}
		before.Revealed, before.Late = a.AfterReveal, classroom.HeldLate(a.Late, lateCredit)
		a.Score = classroom.AttemptScore(rule, share, a.Correct, before)
		before.Tries++
		if !a.Correct {
			before.Wrong++
		}
		best = max(best, a.Score)
		if a.Correct {
			correct = true
			if firstCorrect == 0 {
				firstCorrect = a.Try
			}
			solved = solved || classroom.Solves(a.Correct, before)
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE attempts SET correct = ?, score = ?, mistake = ?, parsed = ? WHERE id = ?`),
			a.Correct, a.Score, a.Mistake, a.Parsed, a.ID); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE progress SET best = ?, correct = ?, tries_to_correct = ?, solved = ?
		WHERE learner_id = ? AND exercise = ?`), best, correct, firstCorrect, solved, as[0].LearnerID, as[0].Exercise); err != nil {
		return nil, err
	}
	// The row as just written: the score every view shows now.
	p.Score, p.Correct, p.TriesToCorrect, p.Solved = best, correct, firstCorrect, solved
	if now, _ := classroom.BestScore(p); now != old {
		return &classroom.ScoreChange{LearnerID: as[0].LearnerID, Exercise: as[0].Exercise, Score: now, Previous: old}, nil
	}
	return nil, nil
}

// progressOf is one learner's progress on an exercise, read in tx (with
// the teacher's review, which BestScore reads).
func (s *DB) progressOf(ctx context.Context, tx *sql.Tx, learnerID int64, exercise string) (classroom.Progress, error) {
	ps, err := s.progressIn(ctx, tx, `p.learner_id = ? AND p.exercise = ?`, learnerID, exercise)
	if err != nil {
		return classroom.Progress{}, err
	}
	if len(ps) != 1 {
		return classroom.Progress{}, fmt.Errorf("%d progress rows for learner %d on %s", len(ps), learnerID, exercise)
	}
	return ps[0], nil
}

// rescoreFor checks what Rescore and CreditLate are given and the
// teacher's key, and clips each verdict as Record clips an attempt: it
// returns the class, the time now and the verdicts by attempt.
func (s *DB) rescoreFor(ctx context.Context, code, key, exercise, rule string, verdicts []classroom.Verdict) (*classroom.Class, int64, map[int64]classroom.Verdict, error) {
	if exercise == "" || len(exercise) > classroom.MaxExerciseLen {
		return nil, 0, nil, classroom.Errorf(classroom.EINVALID, "exercise: must be 1 to %d characters", classroom.MaxExerciseLen)
	}
	if err := classroom.CheckRule(rule); err != nil {
		return nil, 0, nil, err
	}
	if len(verdicts) > classroom.MaxRescoreVerdicts {
		return nil, 0, nil, classroom.Errorf(classroom.EINVALID, "verdicts: at most %d at once, not %d", classroom.MaxRescoreVerdicts, len(verdicts))
	}
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, 0, nil, err
	}
	now := s.nowMS()
	if err := c.ClosedError(fromMS(now), "changes"); err != nil {
		return nil, 0, nil, err
	}
	by := make(map[int64]classroom.Verdict, len(verdicts))
	for _, v := range verdicts {
		clip := classroom.Attempt{Mistake: v.Mistake, Parsed: v.Parsed}
		classroom.CheckMistake(&clip)
		v.Mistake, v.Parsed = clip.Mistake, clip.Parsed
		by[v.AttemptID] = v
	}
	return c, now, by, nil
}
