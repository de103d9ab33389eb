package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/lti/ltitest"
)

// TestLTIOpenAnswerScoredAgainAlike: a learner answers an open question
// again after the teacher scored it, so the course's gradebook is told
// the work needs grading again (PendingManual). The teacher reads the new
// answer and gives it the same score. The dashboard then says scored, and
// so must the course: it kept "needs grading" for good, as an unchanged
// score was not sent on.
func TestLTIOpenAnswerScoredAgainAlike(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		item := e.plat.LineItem("10")
		ada := newPerson(t, e.url)
		e.launchAs(ada, ltitest.Learner, "link-sms-twice", "exercise:sms-twice", item)
		grace := newPerson(t, e.url)
		a := e.launchAs(grace, ltitest.Teacher, "link-sms-twice", "exercise:sms-twice", item)
		code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
		var me struct {
			Learner struct {
				ID int64 `json:"id"`
			} `json:"learner"`
		}
		ada.get("/api/me").decode(t, &me)
		score := func() {
			t.Helper()
			wantStatus(t, grace.postJSON("/api/classes/"+code+"/reviews",
				fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":1}`, me.Learner.ID)), http.StatusOK, "the teacher's review")
			e.deliver()
		}

		answerAs(t, ada, "sms-twice", "An idempotency key the provider keeps.")
		score()
		e.clock.Advance(time.Second)
		answerAs(t, ada, "sms-twice", "An idempotency key the provider keeps, and a check before each send.")
		e.deliver()
		if s := lastScore(e.plat, item); s == nil || s.Grading != "PendingManual" {
			t.Fatalf("after the answer written again, the course was sent %+v; want PendingManual", s)
		}
		e.clock.Advance(time.Second)
		score()
		if s := lastScore(e.plat, item); s == nil || s.ScoreGiven != 1 || s.Grading != "FullyGraded" {
			t.Errorf("after the teacher scored the new answer 1 again, the course was last sent %+v; want 1, FullyGraded", s)
		}
	})
}
