package web_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// flakyGrades is an LTI store whose reads of a class's grades fail while
// fail is set, as those of a database gone for a while would.
type flakyGrades struct {
	classroom.LTIStore
	fail atomic.Bool
}

// LTIGrades fails while fail is set, and reads the grades otherwise.
func (f *flakyGrades) LTIGrades(ctx context.Context, classID int64, now time.Time) (*classroom.LTIGrades, error) {
	if f.fail.Load() {
		return nil, errors.New("the database went away")
	}
	return f.LTIStore.LTIGrades(ctx, classID, now)
}

// TestGradesReadFailureReachesTheOpenDashboard: a read of the class's
// grades that fails, with the teacher's dashboard open, sends its stream
// a grades event that says so in words for the card's status line
// (`unread`), rather than nothing, which left the card as it was with no
// sign; the next good read sends the panel again.
func TestGradesReadFailureReachesTheOpenDashboard(t *testing.T) {
	clock := newStillClock()
	st := ltiStore(t, "sqlite", clock)
	flaky := &flakyGrades{LTIStore: st.(classroom.LTIStore)}
	e := serveLTI(t, st, flaky, clock.Now, nil, serveHTTP(t))
	e.addPlatform(clock.Now)
	c := e.gradedCourse()
	s := openGradesStream(t, e.url, c.code, c.grace.cookie(web.TeacherCookie))
	if g := s.next("the panel on connect"); g.State != "sent" || g.Unread != "" {
		t.Fatalf("the panel on connect: %+v", g)
	}

	flaky.fail.Store(true)
	checkRight(t, c.ada) // Ada's score is queued; the panel's read fails
	if g := s.next("the panel's read failed"); g.Unread != "Could not read the grades; trying again in 30 s." || g.State != "" {
		t.Errorf("after a failed read the stream sent %+v; want the words for the card's status line, and no panel", g)
	}
	flaky.fail.Store(false)
	e.deliver() // Ada's score is sent; the panel is read again
	// A read of the queuing's change still to come may find the score
	// waiting first: a panel, read well; then the one that says it sent.
	for i := 0; ; i++ {
		g := s.next("the panel read again")
		if g.Unread != "" || g.State == "" {
			t.Fatalf("after a good read the stream sent %+v; want a panel, with no word of a failed read", g)
		}
		if g.State == "sent" {
			if g.SentText != "1 score sent" {
				t.Errorf("the panel read again says %q, want 1 score sent", g.SentText)
			}
			break
		}
		if g.State != "waiting" || i == 2 {
			t.Fatalf("after a good read the stream sent %+v; want the panel saying the score was sent", g)
		}
	}
}
