package web_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
)

// refusingStandings is a store that fails every learner's standing
// queued through it.
type refusingStandings struct{ classroom.LTIStore }

func (refusingStandings) EnqueueLTIItemScore(context.Context, int64, int64, string, classroom.GradeItem) (int, error) {
	return 0, errors.New("the database refused the score")
}

// TestClassRevealGivenUpIsNotQueuedByARepeat: a class's reveal the score
// queue gave up passing on to the course (its learners' standings failed
// to queue for a day) is not queued again by the teacher posting the
// reveal once more: a repeat reveal writes nothing and queues nothing.
// The dashboard's "Send again" does, and the learner who had not
// answered is sent their 0.
func TestClassRevealGivenUpIsNotQueuedByARepeat(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		ctx := context.Background()
		e := startLTI(t, kind)
		item := e.plat.LineItem("12")
		const ex = "outlive-lease"
		e.launchAs(newPerson(t, e.url), ltitest.Learner, "link-outlive", "exercise:"+ex, item)
		grace := newPerson(t, e.url)
		a := e.launchAs(grace, ltitest.Teacher, "link-outlive", "exercise:"+ex, item)
		code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")
		revealToClass(t, grace, code, ex)

		failing := lti.New(lti.Config{Store: refusingStandings{e.lst}, Now: e.clock.Now, Lessons: catalog(t)})
		t.Cleanup(failing.Close)
		for range 24 { // a day of the worker's passes
			if _, err := failing.QueueReveals(ctx); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Hour)
		}
		sentTo := func() *ltitest.Score {
			var got *ltitest.Score
			for _, s := range e.plat.Scores() {
				if s.LineItem == item && s.UserID == ltitest.Learner.Sub {
					got = &s
				}
			}
			return got
		}
		if _, err := e.tool.Deliver(ctx); err != nil {
			t.Fatal(err)
		}
		if got := sentTo(); got != nil {
			t.Fatalf("the learner was sent %+v though the reveal was given up", got)
		}

		revealToClass(t, grace, code, ex) // the teacher reveals it again
		if _, err := e.tool.Deliver(ctx); err != nil {
			t.Fatal(err)
		}
		if got := sentTo(); got != nil {
			t.Errorf("the reveal posted again queued the given-up reveal: the learner was sent %+v", got)
		}

		// The dashboard's "Send again" has it tried anew: the learner who
		// had not answered is sent their 0.
		var r struct {
			Reveals int `json:"reveals"`
		}
		a = grace.postJSON("/api/classes/"+code+"/lti/grades/retry", `{}`)
		wantStatus(t, a, http.StatusOK, "Send again")
		a.decode(t, &r)
		if r.Reveals != 1 {
			t.Errorf("Send again answered %s; want the given-up reveal re-armed", a.body)
		}
		if _, err := e.tool.Deliver(ctx); err != nil {
			t.Fatal(err)
		}
		if got := sentTo(); got == nil || !got.Given || got.ScoreGiven != 0 || got.Grading != "FullyGraded" {
			t.Errorf("after Send again the learner was sent %+v; want a final 0", got)
		}
	})
}
