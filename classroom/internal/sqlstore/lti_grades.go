package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/leaselab/playground/classroom"
)

// givenUpScores is the WHERE, over lti_scores j, of a class's scores the
// queue gave up on that still stand for their learner: the last queued
// for the learner on the line item (a later one, sent or waiting, says
// what the course should have), the learner still in the class (one
// removed is sent nothing more) and the line item still linked to the
// class (a link re-pointed since no longer grades into it). Its one
// parameter is the class's ID. LTIGrades counts these and RetryLTIGrades
// re-arms them: what the teacher is told is given up is what "Send again"
// sends.
const givenUpScores = `j.class_id = ? AND j.outcome = 'failed'
	AND EXISTS (SELECT 1 FROM lti_users u WHERE u.class_id = j.class_id AND u.learner_id = j.learner_id)
	AND EXISTS (SELECT 1 FROM lti_links k WHERE k.class_id = j.class_id AND k.lineitem_url = j.lineitem_url)
	AND NOT EXISTS (SELECT 1 FROM lti_scores n WHERE n.lineitem_url = j.lineitem_url AND n.user_sub = j.user_sub AND n.id > j.id)`

// unmatchedScores is the WHERE, over lti_scores j, of the scores queued
// before scores named their class that the upgrade matched to no class
// (class_id 0), on a line item linked to the class (its one parameter),
// not known to have reached the course: waiting, or given up while still
// the last queued for their user on the line item.
const unmatchedScores = `j.class_id = 0 AND j.outcome IN ('', 'failed')
	AND EXISTS (SELECT 1 FROM lti_links k WHERE k.class_id = ? AND k.lineitem_url = j.lineitem_url)
	AND NOT EXISTS (SELECT 1 FROM lti_scores n WHERE n.lineitem_url = j.lineitem_url AND n.user_sub = j.user_sub AND n.id > j.id)`

// LTIGrades implements classroom.LTIStore.
func (s *DB) LTIGrades(ctx context.Context, classID int64, now time.Time) (*classroom.LTIGrades, error) {
	var g classroom.LTIGrades
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT title FROM lti_contexts WHERE class_id = ?`), classID).Scan(&g.Course)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "this class was not made by a launch from a course")
	} else if err != nil {
		return nil, wrap("read the grades sent", err)
	}
	var scoreNext, revealNext, givenUpAt, revealGivenUpAt int64
	if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT
			COALESCE(SUM(CASE WHEN outcome = 'sent' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN done_at = 0 THEN 1 ELSE 0 END), 0),
			COALESCE(MIN(CASE WHEN done_at = 0 THEN next_at END), 0)
		FROM lti_scores WHERE class_id = ?`), classID).Scan(&g.Sent, &g.Waiting, &scoreNext); err != nil {
		return nil, wrap("read the grades sent", err)
	}
	if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT
			COALESCE(SUM(CASE WHEN failed_at = 0 THEN 1 ELSE 0 END), 0),
			COALESCE(MIN(CASE WHEN failed_at = 0 THEN next_at END), 0),
			COALESCE(SUM(CASE WHEN failed_at <> 0 THEN 1 ELSE 0 END), 0)
		FROM lti_reveals WHERE class_id = ?`), classID).Scan(&g.RevealsWaiting, &revealNext, &g.RevealsGivenUp); err != nil {
		return nil, wrap("read the grades sent", err)
	}
	if g.Waiting+g.RevealsWaiting > 0 {
		next := int64(0)
		switch {
		case g.Waiting == 0:
			next = revealNext
		case g.RevealsWaiting == 0:
			next = scoreNext
		default:
			next = min(scoreNext, revealNext)
		}
		// Due already (or being sent): the next try is now.
		g.NextAt = fromMS(max(next, now.UnixMilli()))
	}
	if g.Waiting > 0 {
		err := s.db.QueryRowContext(ctx, s.d.q(`SELECT last_error FROM lti_scores
			WHERE class_id = ? AND done_at = 0 AND last_error <> '' ORDER BY id DESC LIMIT 1`), classID).Scan(&g.RetryError)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, wrap("read the grades sent", err)
		}
	}
	err = s.db.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*), COALESCE(MAX(j.done_at), 0) FROM lti_scores j WHERE `+givenUpScores), classID).Scan(&g.GivenUp, &givenUpAt)
	if err != nil {
		return nil, wrap("read the grades sent", err)
	}
	if g.GivenUp > 0 {
		if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT j.last_error FROM lti_scores j WHERE `+givenUpScores+`
			ORDER BY j.done_at DESC, j.id DESC LIMIT 1`), classID).Scan(&g.LastError); err != nil {
			return nil, wrap("read the grades sent", err)
		}
	}
	if g.RevealsGivenUp > 0 {
		var msg string
		if err := s.db.QueryRowContext(ctx, s.d.q(`SELECT last_error, failed_at FROM lti_reveals
			WHERE class_id = ? AND failed_at <> 0 ORDER BY failed_at DESC, id DESC LIMIT 1`), classID).Scan(&msg, &revealGivenUpAt); err != nil {
			return nil, wrap("read the grades sent", err)
		}
		if revealGivenUpAt > givenUpAt {
			g.LastError, givenUpAt = msg, revealGivenUpAt
		}
	}
	g.GivenUpAt = fromMS(givenUpAt)
	err = s.db.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM lti_scores j WHERE `+unmatchedScores), classID).Scan(&g.Unmatched)
	if err != nil {
		return nil, wrap("read the grades sent", err)
	}
	return &g, nil
}

// RetryLTIGrades implements classroom.LTIStore: the scores are re-armed
// as new (no tries yet, due now), the reveals as a settings change
// re-arms them (retryReveals), in one write.
func (s *DB) RetryLTIGrades(ctx context.Context, classID int64, now time.Time, limit int) (scores, reveals int, err error) {
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		scores, reveals = 0, 0
		res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = 0, outcome = '', tries = 0, next_at = ?, claimed_until = 0
			WHERE outcome = 'failed' AND id IN (SELECT j.id FROM lti_scores j WHERE `+givenUpScores+` ORDER BY j.id LIMIT ?)`),
			now.UnixMilli(), classID, limit)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		scores = int(n)
		res, err = tx.ExecContext(ctx, s.d.q(`UPDATE lti_reveals SET tries = 0, next_at = 0, failed_at = 0, last_error = ''
			WHERE failed_at <> 0 AND id IN (SELECT id FROM lti_reveals WHERE class_id = ? AND failed_at <> 0 ORDER BY id LIMIT ?)`), classID, limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		reveals = int(n)
		gradesChanged(classID, int64(scores+reveals), changed)
		return err
	})
	if err != nil {
		return 0, 0, wrap("send the grades again", err)
	}
	return scores, reveals, nil
}
