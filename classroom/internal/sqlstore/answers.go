package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/leaselab/playground/classroom"
)

// nullReview reads a review's columns from a LEFT JOIN, which are NULL
// where there is none.
type nullReview struct {
	score   sql.NullFloat64
	comment sql.NullString
	at      sql.NullInt64
}

func (r nullReview) review(learnerID int64, exercise string) *classroom.Review {
	if !r.score.Valid {
		return nil
	}
	return &classroom.Review{LearnerID: learnerID, Exercise: exercise, Score: r.score.Float64,
		Comment: r.comment.String, At: fromMS(r.at.Int64)}
}

// GiveUp implements classroom.Store. It upserts the progress row with no
// try, so a learner who gives up before answering has a row that says so.
func (s *DB) GiveUp(ctx context.Context, token, exercise string, variant int) (*classroom.Progress, error) {
	a := classroom.Attempt{Exercise: exercise, Variant: variant, Graded: true}
	if err := classroom.CheckAttempt(&a); err != nil {
		return nil, err
	}
	var learnerID int64
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		l, err := s.learnerBySession(ctx, tx, token, s.d.ShareRow)
		if err != nil {
			return err
		}
		now := s.nowMS()
		if err := s.classOpen(ctx, tx, l.ClassID, now); err != nil {
			return err
		}
		learnerID = l.ID
		if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO progress
			(learner_id, exercise, class_id, tries, correct, tries_to_correct, last_variant, first_at, last_at, gave_up_at, revealed_at)
			VALUES (?, ?, ?, 0, ?, 0, ?, ?, ?, ?, ?)
			ON CONFLICT (learner_id, exercise) DO UPDATE SET
				gave_up_at = CASE WHEN progress.gave_up_at = 0 THEN excluded.gave_up_at ELSE progress.gave_up_at END,
				revealed_at = CASE WHEN progress.revealed_at = 0 THEN excluded.revealed_at ELSE progress.revealed_at END,
				first_at = CASE WHEN progress.first_at = 0 THEN excluded.first_at ELSE progress.first_at END,
				last_at = excluded.last_at`),
			l.ID, exercise, l.ClassID, false, variant, now, now, now, now); err != nil {
			return err
		}
		changed(classroom.Change{ClassID: l.ClassID, Kind: classroom.ChangeAttempt, LearnerID: l.ID})
		return s.touch(ctx, tx, l.ClassID, now, activityEvery)
	})
	if err != nil {
		return nil, wrap("give up", err)
	}
	ps, err := s.progress(ctx, `p.learner_id = ? AND p.exercise = ?`, learnerID, exercise)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		// Removed by the teacher in between.
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "your class session has ended (you went on in another browser, or the teacher removed you): continue here with a device code from that browser, or join the class again with its code")
	}
	return &ps[0], nil
}

// Review implements classroom.Store.
func (s *DB) Review(ctx context.Context, code, key string, r classroom.Review) (*classroom.Review, error) {
	if err := classroom.CheckReview(&r); err != nil {
		return nil, err
	}
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	now := s.nowMS()
	if err := c.ClosedError(fromMS(now), "changes"); err != nil {
		return nil, err
	}
	r.At = fromMS(now)
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		// An open answer needs an attempt; a revealed exercise may have
		// none (the learner gave up without answering), only its
		// progress row. Revealed means shown before any right answer: a
		// solved exercise whose answer was looked at later keeps its
		// checker's score.
		var attempts, revealed int
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT
				(SELECT COUNT(*) FROM attempts a WHERE a.learner_id = l.id AND a.exercise = ?),
				(SELECT COUNT(*) FROM progress p WHERE p.learner_id = l.id AND p.exercise = ? AND p.revealed_at > 0 AND NOT p.solved)
			FROM learners l WHERE l.id = ? AND l.class_id = ?`), r.Exercise, r.Exercise, r.LearnerID, c.ID).Scan(&attempts, &revealed)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return classroom.Errorf(classroom.ENOTFOUND, "learner %d is not in class %s", r.LearnerID, c.Code)
		case err != nil:
			return err
		case r.Graded && revealed == 0:
			return classroom.Errorf(classroom.EINVALID, "exercise: %s is graded by the checker; a teacher may score it only after it was revealed to the learner", r.Exercise)
		case attempts == 0 && revealed == 0:
			return classroom.Errorf(classroom.ENOTFOUND, "learner %d of class %s has not answered %s", r.LearnerID, c.Code, r.Exercise)
		}
		var prev float64
		switch err := tx.QueryRowContext(ctx, s.d.q(`SELECT score FROM reviews WHERE learner_id = ? AND exercise = ?`),
			r.LearnerID, r.Exercise).Scan(&prev); {
		case err == nil:
			r.Previous = &prev
		case !errors.Is(err, sql.ErrNoRows):
			return err
		case revealed > 0:
			// A first score of a revealed exercise replaces what its
			// attempts earned before the reveal (a choose-several's share).
			var open bool
			if err := tx.QueryRowContext(ctx, s.d.q(`SELECT best, open_answer FROM progress WHERE learner_id = ? AND exercise = ?`),
				r.LearnerID, r.Exercise).Scan(&prev, &open); err != nil {
				return err
			}
			if !open {
				r.Previous = &prev
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO reviews (learner_id, exercise, class_id, score, comment, at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (learner_id, exercise) DO UPDATE SET
				score = excluded.score, comment = excluded.comment, at = excluded.at`),
			r.LearnerID, r.Exercise, c.ID, r.Score, r.Comment, now); err != nil {
			return err
		}
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeReview, LearnerID: r.LearnerID})
		return s.touch(ctx, tx, c.ID, now, 0)
	})
	if err != nil {
		return nil, wrap("review", err)
	}
	return &r, nil
}

// Answers implements classroom.Store.
func (s *DB) Answers(ctx context.Context, code, key string) ([]classroom.TextAnswer, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	return s.answers(ctx, c.ID)
}

// answers reads a class's open answers, oldest first, with reviews.
func (s *DB) answers(ctx context.Context, classID int64) ([]classroom.TextAnswer, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT a.learner_id, l.name, a.exercise, a.variant, a.answer, a.at, a.after_reveal, a.late,
			r.score, r.comment, r.at
		FROM attempts a JOIN learners l ON l.id = a.learner_id
		LEFT JOIN reviews r ON r.learner_id = a.learner_id AND r.exercise = a.exercise
		WHERE a.class_id = ? AND NOT a.graded ORDER BY a.id`), classID)
	if err != nil {
		return nil, wrap("read answers", err)
	}
	defer rows.Close()
	out := []classroom.TextAnswer{}
	for rows.Next() {
		var t classroom.TextAnswer
		var at int64
		var rv nullReview
		if err := rows.Scan(&t.LearnerID, &t.LearnerName, &t.Exercise, &t.Variant, &t.Answer, &at, &t.AfterReveal, &t.Late,
			&rv.score, &rv.comment, &rv.at); err != nil {
			return nil, wrap("read answers", err)
		}
		t.At, t.Review = fromMS(at), rv.review(t.LearnerID, t.Exercise)
		out = append(out, t)
	}
	return out, wrap("read answers", rows.Err())
}

// Mistakes implements classroom.Store.
func (s *DB) Mistakes(ctx context.Context, code, key string) ([]classroom.MistakeGroup, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	return s.mistakes(ctx, c.ID)
}

// mistakes reads a class's graded wrong answers, oldest first, and groups
// them. Their number is bounded by the attempt limits, and a partial index
// holds just these rows.
func (s *DB) mistakes(ctx context.Context, classID int64) ([]classroom.MistakeGroup, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT a.exercise, a.mistake, a.parsed, a.learner_id, l.name, a.answer, a.variant
		FROM attempts a JOIN learners l ON l.id = a.learner_id
		JOIN progress p ON p.learner_id = a.learner_id AND p.exercise = a.exercise
		WHERE a.class_id = ? AND a.graded AND NOT a.correct
			AND (p.tries_to_correct = 0 OR a.try < p.tries_to_correct)
		ORDER BY a.id`), classID)
	if err != nil {
		return nil, wrap("read mistakes", err)
	}
	defer rows.Close()
	var wrong []classroom.WrongAttempt
	for rows.Next() {
		var w classroom.WrongAttempt
		if err := rows.Scan(&w.Exercise, &w.Mistake, &w.Parsed, &w.LearnerID, &w.LearnerName, &w.Answer, &w.Variant); err != nil {
			return nil, wrap("read mistakes", err)
		}
		wrong = append(wrong, w)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("read mistakes", err)
	}
	return classroom.GroupMistakes(wrong), nil
}

// secretLen is the size of a server secret: 256 bits.
const secretLen = 32

// ServerSecret implements classroom.Store. Replicas starting together
// may both try to make it; the insert that loses does nothing, and both
// read the one that won.
func (s *DB) ServerSecret(ctx context.Context, name string) ([]byte, error) {
	if name == "" || len(name) > 64 {
		return nil, classroom.Errorf(classroom.EINVALID, "name: must be 1 to 64 characters")
	}
	var v []byte
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT value FROM server_secrets WHERE name = ?`), name).Scan(&v)
	if err == nil && len(v) == secretLen {
		return v, nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read secret", err)
	}
	err = s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		_, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO NOTHING`), name, classroom.NewSecretBytes(secretLen), s.nowMS())
		return err
	})
	if err != nil {
		return nil, wrap("make secret", err)
	}
	if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT value FROM server_secrets WHERE name = ?`), name).Scan(&v); err != nil {
		return nil, wrap("read secret", err)
	}
	return v, nil
}
