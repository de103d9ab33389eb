package sqlstore

import (
	"context"
	"database/sql"
	"sort"

	"github.com/leaselab/playground/classroom"
)

// progress reads progress rows matching where (over progress p), with
// each learner's name, ordered by learner then first attempt.
func (s *DB) progress(ctx context.Context, where string, args ...any) ([]classroom.Progress, error) {
	return s.progressIn(ctx, s.db, where, args...)
}

// rowsQuerier is a database or a transaction.
type rowsQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// progressIn is progress read through q (a write's transaction sees its
// own changes).
func (s *DB) progressIn(ctx context.Context, q rowsQuerier, where string, args ...any) ([]classroom.Progress, error) {
	rows, err := q.QueryContext(ctx, s.d.q(`SELECT p.learner_id, l.name, p.exercise, p.tries, p.correct,
			p.tries_to_correct, p.last_variant, p.first_at, p.last_at, p.gave_up_at,
			p.best, p.solved, p.revealed_at, p.open_answer, r.score, r.comment, r.at, p.late_at, p.late_credit
		FROM progress p JOIN learners l ON l.id = p.learner_id
		LEFT JOIN reviews r ON r.learner_id = p.learner_id AND r.exercise = p.exercise
		WHERE `+where+` ORDER BY p.learner_id, p.first_at, p.exercise`), args...)
	if err != nil {
		return nil, wrap("read the progress", err)
	}
	defer rows.Close()
	ps := []classroom.Progress{}
	for rows.Next() {
		var p classroom.Progress
		var first, last, gaveUp, revealed, late int64
		var rv nullReview
		if err := rows.Scan(&p.LearnerID, &p.LearnerName, &p.Exercise, &p.Tries, &p.Correct,
			&p.TriesToCorrect, &p.LastVariant, &first, &last, &gaveUp,
			&p.Score, &p.Solved, &revealed, &p.Open, &rv.score, &rv.comment, &rv.at, &late, &p.LateCredit); err != nil {
			return nil, wrap("read the progress", err)
		}
		p.FirstAt, p.LastAt, p.GaveUp, p.Revealed, p.Late = fromMS(first), fromMS(last), gaveUp > 0, revealed > 0, late > 0
		p.Review = rv.review(p.LearnerID, p.Exercise)
		ps = append(ps, p)
	}
	return ps, wrap("read the progress", rows.Err())
}

// Dashboard implements classroom.Store.
//
// It reads without a transaction (a SQLite read transaction would hold up
// writers' turns for nothing). Progress is read before learners, so every
// learner a progress row names is in the list unless removed meanwhile,
// and the CSV writers iterate learners, so such a row simply drops out.
func (s *DB) Dashboard(ctx context.Context, code, key string) (*classroom.Dashboard, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	d := &classroom.Dashboard{Class: c}
	if d.Progress, err = s.progress(ctx, `p.class_id = ?`, c.ID); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range d.Progress {
		if !seen[p.Exercise] {
			seen[p.Exercise] = true
			d.Exercises = append(d.Exercises, p.Exercise)
		}
	}
	sort.Strings(d.Exercises)
	if d.Mistakes, err = s.mistakes(ctx, c.ID); err != nil {
		return nil, err
	}
	if d.Answers, err = s.answers(ctx, c.ID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT id, name, joined_at, student_id, email FROM learners WHERE class_id = ? ORDER BY id`), c.ID)
	if err != nil {
		return nil, wrap("read the learners", err)
	}
	defer rows.Close()
	d.Learners = []classroom.Learner{}
	for rows.Next() {
		l := classroom.Learner{ClassID: c.ID}
		var joined int64
		if err := rows.Scan(&l.ID, &l.Name, &joined, &l.StudentID, &l.Email); err != nil {
			return nil, wrap("read the learners", err)
		}
		l.JoinedAt = fromMS(joined)
		d.Learners = append(d.Learners, l)
	}
	return d, wrap("read the learners", rows.Err())
}
