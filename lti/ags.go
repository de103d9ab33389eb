package lti

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Queue timing: a claimed score is another replica's to send after
// claimLease; a failed send is tried again after retryBase, doubling up
// to retryMax, and given up after maxTries.
const (
	claimLease = 2 * time.Minute
	retryBase  = 30 * time.Second
	retryMax   = time.Hour
	maxTries   = 12
	// pollEvery is how often the queue looks for scores due, when no
	// new score wakes it: retries, and scores queued by other replicas.
	pollEvery = 10 * time.Second
)

// ScoreMediaType is the media type of an AGS score.
const ScoreMediaType = "application/vnd.ims.lis.v1.score+json"

// EnqueueScore queues a learner's score on an exercise for every graded
// link of the class that opens it, when it differs from the last one
// queued (up after a better answer, down after a withdrawn credit or a
// regrade), and wakes the queue. It writes one row and sends nothing: the
// learner's answer never waits for the platform. It is the one place
// scores enter the queue (web calls it where an attempt is recorded).
func (t *Tool) EnqueueScore(ctx context.Context, classID, learnerID int64, exerciseID string, given, maximum float64) error {
	if maximum <= 0 || given < 0 || given > maximum {
		return fmt.Errorf("score %g of %g: must be between 0 and a positive maximum", given, maximum)
	}
	n, err := t.store.EnqueueLTIScore(ctx, classID, learnerID, "exercise:"+exerciseID, given, maximum)
	if err == nil && n > 0 {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	return err
}

// EnqueueLessonScore queues a learner's score on the lesson of an
// exercise whose score just changed, for the graded links that open the
// whole lesson: the lesson's column of the gradebook (LessonItem).
func (t *Tool) EnqueueLessonScore(ctx context.Context, classID, learnerID int64, exerciseID string) error {
	if t.cfg.Lessons == nil {
		return nil
	}
	ex, err := t.cfg.Lessons.Exercise(exerciseID)
	if err != nil || ex.Lesson == "" {
		return nil
	}
	item, ok := t.LessonItem(ex.Lesson)
	if !ok {
		return nil
	}
	n, err := t.store.EnqueueLTILessonScore(ctx, classID, learnerID, item)
	if err == nil && n > 0 {
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

// Run sends queued scores until ctx ends: at once when one is queued
// here, and every pollEvery for retries and other replicas' scores.
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

// Deliver sends every score due now and returns how many were sent; a
// failed send is scheduled again with backoff (by the tool's clock).
func (t *Tool) Deliver(ctx context.Context) (int, error) {
	sent := 0
	for ctx.Err() == nil {
		job, err := t.store.ClaimLTIScore(ctx, t.now(), claimLease)
		if err != nil || job == nil {
			return sent, err
		}
		err = t.postScore(ctx, job.Platform, job.LineItemURL, job.UserSub, job.Given, job.Maximum, job.ScoredAt)
		switch {
		case err == nil:
			sent++
			err = t.store.FinishLTIScore(ctx, job.ID, "sent", "", time.Time{})
		case job.Tries >= maxTries:
			t.log.Warn("lti: gave up sending a score", "lineitem", job.LineItemURL, "tries", job.Tries, "err", err)
			err = t.store.FinishLTIScore(ctx, job.ID, "failed", err.Error(), time.Time{})
		default:
			err = t.store.FinishLTIScore(ctx, job.ID, "", err.Error(), t.now().Add(Backoff(job.Tries)))
		}
		if err != nil {
			return sent, err
		}
	}
	return sent, ctx.Err()
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
	UserID           string  `json:"userId"`
	ScoreGiven       float64 `json:"scoreGiven"`
	ScoreMaximum     float64 `json:"scoreMaximum"`
	ActivityProgress string  `json:"activityProgress"`
	GradingProgress  string  `json:"gradingProgress"`
	Timestamp        string  `json:"timestamp"`
}

// postScore sends one score to the line item's scores endpoint.
func (t *Tool) postScore(ctx context.Context, p classroom.LTIPlatform, lineItem, sub string, given, maximum float64, at time.Time) error {
	tok, err := t.token(ctx, p, ScopeScore)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(score{UserID: sub, ScoreGiven: given, ScoreMaximum: maximum,
		ActivityProgress: "Completed", GradingProgress: "FullyGraded", Timestamp: at.UTC().Format("2006-01-02T15:04:05.000Z07:00")})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, scoresURL(lineItem), bytes.NewReader(body))
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
