package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
)

// EnqueueLTIScore implements classroom.LTIStore. The score queued is the
// learner's standing now, up or down: a platform keeps the last score a
// tool posts, so a teacher's withdrawn late credit or a regrade after a
// fixed key must reach the gradebook as well as a better answer does. A
// score equal to the last one queued for that line item and user (and
// not given up on) is not queued again; a different one supersedes those still waiting, so a
// learner who improves three times while the platform is down is sent
// their latest once.
func (s *DB) EnqueueLTIScore(ctx context.Context, classID, learnerID int64, target string, given, maximum float64, pending bool) (int, error) {
	// Most learners did not come by a launch: one read tells, without
	// taking the write lock on every right answer.
	if ok, err := s.cameByLaunch(ctx, classID, learnerID); err != nil || !ok {
		return 0, wrap("queue the score", err)
	}
	return s.enqueueScore(ctx, classID, learnerID, target, func(*sql.Tx) (float64, float64, bool, error) {
		return given, maximum, pending, nil
	})
}

// standingFunc works out, in the queuing transaction, the score to queue:
// given of maximum, and whether it waits for the teacher.
type standingFunc func(tx *sql.Tx) (given, maximum float64, pending bool, err error)

// enqueueScore queues the score standing works out for every graded link
// of the class that opens target. The learner's launch row is locked
// first (on PostgreSQL; SQLite's writes are serial), so two queuings for
// one learner run one after the other, and standing reads what was
// committed before this one's turn: the score queued last is the one
// worked out last, never one read before an answer that another queuing
// has already counted.
func (s *DB) enqueueScore(ctx context.Context, classID, learnerID int64, target string, standing standingFunc) (int, error) {
	queued := 0
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		queued = 0
		var sub string
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT sub FROM lti_users WHERE class_id = ? AND learner_id = ?`+s.d.LockRow), classID, learnerID).Scan(&sub)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // not a learner who came by launch
		} else if err != nil {
			return err
		}
		given, maximum, pending, err := standing(tx)
		if err != nil {
			return err
		}
		s.pause(classroom.PauseQueueScoreRead)
		rows, err := tx.QueryContext(ctx, s.d.q(`SELECT platform_id, lineitem_url FROM lti_links
			WHERE class_id = ? AND target = ? AND lineitem_url <> ''`), classID, target)
		if err != nil {
			return err
		}
		type item struct {
			platform int64
			url      string
		}
		var items []item
		for rows.Next() {
			var it item
			if err := rows.Scan(&it.platform, &it.url); err != nil {
				rows.Close()
				return err
			}
			items = append(items, it)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		now := s.nowMS()
		for _, it := range items {
			var last float64
			var lastPending bool
			// The last score the platform has or will get: one the queue
			// gave up on, or withdrew with its learner, never reached it.
			err := tx.QueryRowContext(ctx, s.d.q(`SELECT score_given / score_max, pending FROM lti_scores
				WHERE lineitem_url = ? AND user_sub = ? AND outcome NOT IN ('superseded', 'failed', 'withdrawn') ORDER BY id DESC LIMIT 1`), it.url, sub).Scan(&last, &lastPending)
			switch {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return err
			case math.Abs(given/maximum-last) < 1e-9 && pending == lastPending:
				continue
			}
			if err := s.overtaken(ctx, tx, it.url, sub, classID, changed); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = ?, outcome = 'superseded'
				WHERE lineitem_url = ? AND user_sub = ? AND done_at = 0 AND claimed_until <= ?`), now, it.url, sub, now); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_scores (platform_id, lineitem_url, user_sub, score_given, score_max, scored_at, next_at, pending, class_id, learner_id)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), it.platform, it.url, sub, given, maximum, now, now, pending, classID, learnerID); err != nil {
				return err
			}
			queued++
		}
		gradesChanged(classID, int64(queued), changed)
		return nil
	})
	return queued, wrap("queue the score", err)
}

const scoreColumns = `j.id, j.platform_id, j.lineitem_url, j.user_sub, j.score_given, j.score_max, j.pending, j.scored_at, j.tries, j.next_at, j.done_at, j.outcome, j.last_error, j.claimed_until`

func scanScore(r rowScanner, extra ...any) (*classroom.LTIScoreJob, error) {
	var j classroom.LTIScoreJob
	var scored, next, done, claimed int64
	if err := r.Scan(append([]any{&j.ID, &j.PlatformID, &j.LineItemURL, &j.UserSub, &j.Given, &j.Maximum, &j.Pending, &scored, &j.Tries, &next, &done, &j.Outcome, &j.LastError, &claimed}, extra...)...); err != nil {
		return nil, err
	}
	j.ScoredAt, j.NextAt, j.DoneAt, j.ClaimedUntil = fromMS(scored), fromMS(next), fromMS(done), fromMS(claimed)
	return &j, nil
}

// ClaimLTIScore implements classroom.LTIStore. The claim is one UPDATE
// whose WHERE is checked again on the row it changes, so two replicas
// that pick the same score cannot both claim it: PostgreSQL re-reads the
// row after the other's commit, and SQLite runs one write at a time.
//
// Scores of one learner on one line item reach the course in the order
// they were queued, and an older one never after a newer: a score is not
// claimed while another of theirs is claimed and its claim stands (it
// waits its turn), and one with a newer score queued after it is
// superseded rather than claimed (the newer is the one the course must
// keep). The waiting rows of the score's learner and line item are
// locked (on PostgreSQL) before this is read, so a claim of another of
// them by another replica has committed, and is seen, first.
func (s *DB) ClaimLTIScore(ctx context.Context, now time.Time, lease time.Duration) (*classroom.LTIScoreJob, error) {
	var job *classroom.LTIScoreJob
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		job = nil
		nowMS := now.UnixMilli()
		// Each turn either claims, finds nothing, supersedes a score or
		// steps over one a claim committed meanwhile now holds back.
		for range 64 {
			var id int64
			var url, sub string
			err := tx.QueryRowContext(ctx, s.d.q(`SELECT j.id, j.lineitem_url, j.user_sub FROM lti_scores j
				WHERE j.done_at = 0 AND j.next_at <= ? AND j.claimed_until <= ?
				AND NOT EXISTS (SELECT 1 FROM lti_scores o WHERE o.lineitem_url = j.lineitem_url AND o.user_sub = j.user_sub
					AND o.id <> j.id AND o.done_at = 0 AND o.claimed_until > ?)
				ORDER BY j.next_at, j.id LIMIT 1`), nowMS, nowMS, nowMS).Scan(&id, &url, &sub)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			} else if err != nil {
				return err
			}
			if s.d.LockRow != "" {
				rows, err := tx.QueryContext(ctx, s.d.q(`SELECT id FROM lti_scores WHERE lineitem_url = ? AND user_sub = ? AND done_at = 0 ORDER BY id`+s.d.LockRow), url, sub)
				if err != nil {
					return err
				}
				if err := rows.Close(); err != nil {
					return err
				}
			}
			var held, newer int
			if err := tx.QueryRowContext(ctx, s.d.q(`SELECT
				COALESCE(SUM(CASE WHEN id <> ? AND done_at = 0 AND claimed_until > ? THEN 1 ELSE 0 END), 0),
				COALESCE(SUM(CASE WHEN id > ? THEN 1 ELSE 0 END), 0)
				FROM lti_scores WHERE lineitem_url = ? AND user_sub = ?`), id, nowMS, id, url, sub).Scan(&held, &newer); err != nil {
				return err
			}
			switch {
			case held > 0:
				continue // another replica's claim committed first: its turn
			case newer > 0:
				if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = ?, outcome = 'superseded'
					WHERE id = ? AND done_at = 0 AND claimed_until <= ?`), s.nowMS(), id, nowMS); err != nil {
					return err
				}
				// It no longer waits.
				if err := s.scoreChanged(ctx, tx, id, changed); err != nil {
					return err
				}
				continue
			}
			res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET claimed_until = ?, tries = tries + 1
				WHERE id = ? AND done_at = 0 AND claimed_until <= ?`), nowMS+lease.Milliseconds(), id, nowMS)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return err // another replica took it: nothing to do now
			}
			var pl platformRow
			j, err := scanScore(tx.QueryRowContext(ctx, s.d.q(`SELECT `+scoreColumns+`, `+platformColumns+`
				FROM lti_scores j JOIN lti_platforms p ON p.id = j.platform_id WHERE j.id = ?`), id), pl.dest()...)
			if err != nil {
				return err
			}
			j.Platform = pl.platform()
			job = j
			return nil
		}
		return nil
	})
	if err != nil {
		return nil, wrap("claim a score to send", err)
	}
	return job, nil
}

// FinishLTIScore implements classroom.LTIStore. A failure is recorded
// only while job's claim stands and the score is not done: a worker whose
// claim ran out and was taken clears no claim of the replica now sending
// the score (a third would take it, and post it while the second still
// does), nor gives up or re-arms a score the course already has. A send
// is recorded whoever holds the score now, since the course has it, but
// it ends only the worker's own claim.
// A failed try of a score with a newer one queued after it supersedes
// it: it is never tried after the newer one.
func (s *DB) FinishLTIScore(ctx context.Context, job *classroom.LTIScoreJob, outcome, lastError string, retryAt time.Time) error {
	claim := job.ClaimedUntil.UnixMilli()
	err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		if len(lastError) > 500 {
			lastError = lastError[:500]
		}
		switch {
		case outcome == "sent":
			if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = ?, outcome = 'sent', last_error = '',
				claimed_until = CASE WHEN claimed_until = ? THEN 0 ELSE claimed_until END WHERE id = ?`),
				s.nowMS(), claim, job.ID); err != nil {
				return err
			}
			if err := s.resendNewer(ctx, tx, job.ID); err != nil {
				return err
			}
			return s.scoreChanged(ctx, tx, job.ID, changed)
		case outcome != "":
			res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = ?, outcome = ?, last_error = ?, claimed_until = 0
				WHERE id = ? AND claimed_until = ? AND done_at = 0`),
				s.nowMS(), outcome, lastError, job.ID, claim)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return err // another's claim: nothing of this one was written
			}
			return s.scoreChanged(ctx, tx, job.ID, changed)
		}
		res, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET next_at = ?, last_error = ?, claimed_until = 0
			WHERE id = ? AND claimed_until = ? AND done_at = 0`),
			retryAt.UnixMilli(), lastError, job.ID, claim)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		// Its next try and why the last failed are the panel's.
		if err := s.scoreChanged(ctx, tx, job.ID, changed); err != nil {
			return err
		}
		// A newer score of the learner on the line item was queued while
		// this one was on its way: it is the one the course must keep, so
		// this one is not tried again (nor counted as waiting).
		var newer int
		if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM lti_scores n JOIN lti_scores j
			ON n.lineitem_url = j.lineitem_url AND n.user_sub = j.user_sub AND n.id > j.id WHERE j.id = ?`), job.ID).Scan(&newer); err != nil || newer == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = ?, outcome = 'superseded' WHERE id = ? AND done_at = 0`), s.nowMS(), job.ID)
		return err
	})
	return wrap("record the score's sending", err)
}

// resendNewer re-arms the newest score of the learner on the line item
// of the score id, when the course had it already: the post of score id,
// an older one (a worker that stalled past its claim and still posted
// it), reached the course after it, and the course keeps the last
// score posted. The newest goes again, so it is the last the course gets.
func (s *DB) resendNewer(ctx context.Context, tx *sql.Tx, id int64) error {
	var newest int64
	var outcome string
	err := tx.QueryRowContext(ctx, s.d.q(`SELECT n.id, n.outcome FROM lti_scores n JOIN lti_scores j
		ON n.lineitem_url = j.lineitem_url AND n.user_sub = j.user_sub AND n.id > j.id
		WHERE j.id = ? ORDER BY n.id DESC LIMIT 1`), id).Scan(&newest, &outcome)
	if errors.Is(err, sql.ErrNoRows) || err == nil && outcome != "sent" {
		return nil // no newer one, or it is still to be sent (or never will be)
	} else if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = 0, outcome = '', last_error = '', tries = 0, next_at = ?, claimed_until = 0
		WHERE id = ? AND outcome = 'sent'`), s.nowMS(), newest)
	return err
}

// LTIScoreJobs implements classroom.LTIStore.
func (s *DB) LTIScoreJobs(ctx context.Context, limit int) ([]classroom.LTIScoreJob, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT `+scoreColumns+` FROM lti_scores j ORDER BY j.id DESC LIMIT ?`), limit)
	if err != nil {
		return nil, wrap("list the scores", err)
	}
	defer rows.Close()
	var out []classroom.LTIScoreJob
	for rows.Next() {
		j, err := scanScore(rows)
		if err != nil {
			return nil, wrap("list the scores", err)
		}
		out = append(out, *j)
	}
	return out, wrap("list the scores", rows.Err())
}

// withdrawScores gives up, for good, the scores still to be sent for a
// learner the teacher removes ("withdrawn"), whatever line item they were
// queued for (one a link named then, re-pointed since, too): a learner no
// longer in the class is sent nothing more. A score queued before scores
// named their learner (migration 0014), whose learner could not be told,
// is withdrawn when it is the learner's on a line item of the class.
// Their launch row is locked first (on PostgreSQL), so a queuing for them
// that started before has committed, and one after finds them gone. A
// score on its way is not stopped, but is not tried again. Nothing for a
// learner who did not come by a launch. Each withdrawn score is reported
// as a ChangeGrades of the classes whose panel counted it: one the upgrade
// matched to no class is counted as unmatched by every class linked to
// its line item, the learner's other courses' classes among them.
func (s *DB) withdrawScores(ctx context.Context, tx *sql.Tx, classID, learnerID int64, changed func(classroom.Change)) error {
	var sub string
	err := tx.QueryRowContext(ctx, s.d.q(`SELECT sub FROM lti_users WHERE class_id = ? AND learner_id = ?`+s.d.LockRow), classID, learnerID).Scan(&sub)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, s.d.q(`UPDATE lti_scores SET done_at = ?, outcome = 'withdrawn'
		WHERE done_at = 0 AND (class_id = ? AND learner_id = ?
			OR learner_id = 0 AND user_sub = ? AND lineitem_url IN (SELECT lineitem_url FROM lti_links WHERE class_id = ?))
		RETURNING class_id, lineitem_url`),
		s.nowMS(), classID, learnerID, sub, classID)
	if err != nil {
		return err
	}
	type owner struct {
		classID  int64
		lineItem string
	}
	var owners []owner
	for rows.Next() {
		var o owner
		if err := rows.Scan(&o.classID, &o.lineItem); err != nil {
			rows.Close()
			return err
		}
		if !slices.Contains(owners, o) {
			owners = append(owners, o)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, o := range owners {
		if err := s.ownerChanged(ctx, tx, o.classID, o.lineItem, changed); err != nil {
			return err
		}
	}
	return nil
}

// cameByLaunch reports whether the learner came to the class by a launch.
func (s *DB) cameByLaunch(ctx context.Context, classID, learnerID int64) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM lti_users WHERE class_id = ? AND learner_id = ?`), classID, learnerID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// EnqueueLTIItemScore implements classroom.LTIStore. The learner's
// progress is read in the queuing transaction, after the learner's launch
// row is locked: the standing queued is theirs at commit, with every
// answer committed before it, so an answer that lands while the score of
// an earlier one is on its way is never followed by a score without it.
func (s *DB) EnqueueLTIItemScore(ctx context.Context, classID, learnerID int64, target string, item classroom.GradeItem) (int, error) {
	maximum := item.Points()
	if len(item.Parts) == 0 || maximum <= 0 {
		return 0, nil
	}
	if ok, err := s.cameByLaunch(ctx, classID, learnerID); err != nil || !ok {
		return 0, wrap("queue the score", err)
	}
	args := []any{learnerID}
	marks := make([]string, len(item.Parts))
	for i, part := range item.Parts {
		marks[i], args = "?", append(args, part.Exercise)
	}
	where := `p.learner_id = ? AND p.exercise IN (` + strings.Join(marks, ", ") + `)`
	s.pause(classroom.PauseQueueScore)
	return s.enqueueScore(ctx, classID, learnerID, target, func(tx *sql.Tx) (float64, float64, bool, error) {
		ps, err := s.progressIn(ctx, tx, where, args...)
		if err != nil {
			return 0, 0, false, err
		}
		idx := make(map[string]*classroom.Progress, len(ps))
		for i := range ps {
			idx[ps[i].Exercise] = &ps[i]
		}
		given, _ := classroom.GradeCell(idx, item)
		return given, maximum, classroom.AwaitsTeacher(idx, item), nil
	})
}
