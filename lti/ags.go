package lti

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Queue timing: a claimed score is another replica's to send after
// ClaimLease; a failed send is tried again after retryBase, doubling up
// to retryMax, and given up after maxTries.
const (
	// ClaimLease is how long a replica holds a score (or a reveal) it
	// claimed: after it, another may take it.
	ClaimLease = 2 * time.Minute
	// SendTimeout bounds one send whole, the token and the score, by the
	// tool's clock, whatever the HTTP client's own timeout (Config.Client
	// may have none): a quarter of the claim, so that a send to a platform
	// that hangs has been given up, and its try written, well before
	// another replica may claim the score and send it too, with room left
	// for a slow database and for replicas' clocks that differ.
	SendTimeout = ClaimLease / 4
	retryBase   = 30 * time.Second
	retryMax    = time.Hour
	maxTries    = 12
	// pollEvery is how often the queue looks for scores due, when no
	// new score wakes it: retries, and scores queued by other replicas.
	pollEvery = 10 * time.Second
)

// ScoreMediaType is the media type of an AGS score.
const ScoreMediaType = "application/vnd.ims.lis.v1.score+json"

// EnqueueScore queues a given score of a learner on an exercise for
// every graded link of the class that opens it, when it differs from the
// last one queued, and wakes the queue. It writes one row and sends
// nothing. The server queues through EnqueueStanding, which works the
// score out from the learner's progress; this is the queue's own door,
// for a score from elsewhere (and the queue's tests).
func (t *Tool) EnqueueScore(ctx context.Context, classID, learnerID int64, exerciseID string, given, maximum float64) error {
	if maximum <= 0 || given < 0 || given > maximum {
		return fmt.Errorf("score %g of %g: must be between 0 and a positive maximum", given, maximum)
	}
	n, err := t.store.EnqueueLTIScore(ctx, classID, learnerID, "exercise:"+exerciseID, given, maximum, false)
	if err == nil && n > 0 {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	return err
}

// EnqueueStanding queues a learner's standing on an exercise whose score
// changed, or whose open answer they just submitted: for the graded links
// that open the exercise, and those that open its whole lesson, each the
// item's column of the gradebook (its points of what it is worth),
// marked pending while an open answer in it waits for the teacher. It
// writes rows and sends nothing.
func (t *Tool) EnqueueStanding(ctx context.Context, classID, learnerID int64, exerciseID string) error {
	points := func(string) float64 { return 1 }
	if t.cfg.Lessons != nil {
		points = t.cfg.Lessons.ExercisePoints
	}
	queued := 0
	n, err := t.store.EnqueueLTIItemScore(ctx, classID, learnerID, "exercise:"+exerciseID, classroom.ItemOf(exerciseID, []string{exerciseID}, points))
	queued += n
	if err == nil && t.cfg.Lessons != nil {
		if ex, lerr := t.cfg.Lessons.Exercise(exerciseID); lerr == nil && ex.Lesson != "" {
			if item, ok := t.LessonItem(ex.Lesson); ok {
				n, err = t.store.EnqueueLTIItemScore(ctx, classID, learnerID, "lesson:"+item.Name, item)
				queued += n
			}
		}
	}
	if queued > 0 {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	return err
}

// LessonItem is a lesson's gradebook column: every exercise it lists,
// open answers too, each at its points (classroom.ItemOf). The lesson's
// line item is worth what the column is, and its score is the column's
// cell, so the course's gradebook and gradebook.csv?by=lesson agree.
func (t *Tool) LessonItem(slug string) (classroom.GradeItem, bool) {
	cat := t.cfg.Lessons
	if cat == nil {
		return classroom.GradeItem{}, false
	}
	l, err := cat.Lesson(slug)
	if err != nil {
		return classroom.GradeItem{}, false
	}
	return classroom.ItemOf(l.Slug, l.ExerciseIDs, cat.ExercisePoints), true
}

// Run sends queued scores until ctx ends (Deliver): at once when one is
// queued here (or Wake is called), and every pollEvery for retries and
// other replicas' scores and reveals.
func (t *Tool) Run(ctx context.Context) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if _, err := t.Deliver(ctx); err != nil && ctx.Err() == nil {
			t.log.Warn("lti: score queue", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.ctx.Done():
			return
		case <-tick.C:
		case <-t.wake:
		}
	}
}

// Deliver queues the scores of the reveals waiting (QueueReveals), then
// sends every score due now and returns how many were sent; a failed send
// is scheduled again with backoff (by the tool's clock).
func (t *Tool) Deliver(ctx context.Context) (int, error) {
	if _, err := t.QueueReveals(ctx); err != nil && ctx.Err() == nil {
		// The scores already queued are still sent.
		t.log.Warn("lti: reveals queue", "err", err)
	}
	sent := 0
	for ctx.Err() == nil {
		claimed := t.now()
		job, err := t.store.ClaimLTIScore(ctx, claimed, ClaimLease)
		if err != nil || job == nil {
			return sent, err
		}
		err = t.sendBounded(ctx, job, claimed)
		switch {
		case err == nil:
			sent++
			err = t.store.FinishLTIScore(ctx, job, "sent", "", time.Time{})
		case job.Tries >= maxTries:
			t.log.Warn("lti: gave up sending a score", "lineitem", job.LineItemURL, "tries", job.Tries, "err", err)
			err = t.store.FinishLTIScore(ctx, job, "failed", err.Error(), time.Time{})
		default:
			err = t.store.FinishLTIScore(ctx, job, "", err.Error(), t.now().Add(Backoff(job.Tries)))
		}
		if err != nil {
			return sent, err
		}
	}
	return sent, ctx.Err()
}

// errSendTimeout ends a send that reached its bound (SendTimeout).
var errSendTimeout = fmt.Errorf("the course %s %s", sendTimeoutWords, SendTimeout)

// sendBounded sends a score claimed at claimed, and gives up on it once
// SendTimeout has passed since, by the tool's clock (Config.AfterFunc):
// the claim, four times as long, is then still the tool's, so no other
// replica has the score on its way at the same time.
func (t *Tool) sendBounded(ctx context.Context, job *classroom.LTIScoreJob, claimed time.Time) error {
	left := SendTimeout - t.now().Sub(claimed)
	if left <= 0 {
		return errSendTimeout // the claim itself took the whole bound
	}
	sctx, cancel := context.WithCancelCause(ctx)
	stop := t.afterFunc(left, func() { cancel(errSendTimeout) })
	defer func() {
		stop()
		cancel(nil)
	}()
	err := t.postScore(sctx, job)
	if err != nil && errors.Is(context.Cause(sctx), errSendTimeout) {
		return errSendTimeout
	}
	return err
}

// Backoff is the wait before the next try after tries failed ones.
func Backoff(tries int) time.Duration {
	d := retryBase
	for i := 1; i < tries && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// scoresURL is the line item's scores endpoint: "/scores" added to its
// path, before any query.
func scoresURL(lineItem string) string {
	path, query, hasQuery := strings.Cut(lineItem, "?")
	path = strings.TrimSuffix(path, "/") + "/scores"
	if hasQuery {
		return path + "?" + query
	}
	return path
}

type score struct {
	UserID string `json:"userId"`
	// Left out of a pending score with nothing earned yet: the platform
	// is told the work awaits grading, not given a 0 (the gradebook
	// export leaves that cell blank too).
	ScoreGiven       *float64 `json:"scoreGiven,omitempty"`
	ScoreMaximum     *float64 `json:"scoreMaximum,omitempty"`
	ActivityProgress string   `json:"activityProgress"`
	GradingProgress  string   `json:"gradingProgress"`
	Timestamp        string   `json:"timestamp"`
}

// postScore sends one score to the line item's scores endpoint. A
// pending score is partial, waiting for the teacher to score an open
// answer: "Submitted" and "PendingManual", which a platform shows as
// needing grading, with the points so far (which may rise), or no score
// at all while nothing is earned yet.
func (t *Tool) postScore(ctx context.Context, job *classroom.LTIScoreJob) error {
	p := job.Platform
	tok, err := t.token(ctx, p, ScopeScore)
	if err != nil {
		return err
	}
	sc := score{UserID: job.UserSub, ScoreGiven: &job.Given, ScoreMaximum: &job.Maximum,
		ActivityProgress: "Completed", GradingProgress: "FullyGraded", Timestamp: job.ScoredAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	if job.Pending {
		sc.ActivityProgress, sc.GradingProgress = "Submitted", "PendingManual"
		if job.Given == 0 {
			sc.ScoreGiven, sc.ScoreMaximum = nil, nil
		}
	}
	body, _ := json.Marshal(sc)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, scoresURL(job.LineItemURL), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", ScoreMediaType)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	if resp.StatusCode/100 != 2 {
		if resp.StatusCode == http.StatusUnauthorized {
			t.forgetToken(p, ScopeScore)
		}
		return fmt.Errorf("scores endpoint answered %s: %s", resp.Status, strings.ToValidUTF8(string(msg), ""))
	}
	return nil
}
