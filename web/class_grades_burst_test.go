package web_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// gatedGrades counts the reads of a class's grades panel, and holds them
// at a gate while one is set.
type gatedGrades struct {
	classroom.LTIStore
	reads   atomic.Int64
	mu      sync.Mutex
	gate    chan struct{}
	waiting chan struct{} // told when a read waits at the gate
}

func (g *gatedGrades) LTIGrades(ctx context.Context, classID int64, now time.Time) (*classroom.LTIGrades, error) {
	g.reads.Add(1)
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		select {
		case g.waiting <- struct{}{}:
		default:
		}
		<-gate
	}
	return g.LTIStore.LTIGrades(ctx, classID, now)
}

// TestAThousandScoresSentRedrawThePanelOnce: a course of 1,000 learners
// whose scores the worker sends in one burst costs the teacher's open
// dashboard a read or two of the panel, not one per score, and no read by
// the browser: the changes of the burst merge, and the panel that follows
// says all 1,000 were sent. The panel's reads are held while the worker
// sends, so the test does not depend on how fast either runs. Under
// -short (the race-detector pass) the burst is 200 scores.
func TestAThousandScoresSentRedrawThePanelOnce(t *testing.T) {
	learners := 1000
	if testing.Short() {
		learners = 200
	}
	ctx := context.Background()
	clock := newStillClock()
	opts := classroom.Options{Now: clock.Now, PurgeEvery: -1}
	opts.Limits.MaxLearnersPerClass = learners
	st, err := sqlite.Open(ctx, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	grades := &gatedGrades{LTIStore: st, waiting: make(chan struct{}, 1)}
	e := serveLTI(t, st, grades, clock.Now, nil, serveHTTP(t))
	platform := e.addPlatform(clock.Now)
	launch := func(sub string, instructor bool) *classroom.LTILaunchResult {
		r, err := grades.LTILaunch(ctx, classroom.LTILaunch{PlatformID: platform, ContextID: "course-1", ContextTitle: "Distributed Systems 101",
			Sub: sub, Name: sub, Instructor: instructor, ResourceLinkID: "link-ex", Target: "exercise:outlive-lease", LineItemURL: e.plat.LineItem("7")})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	teacher := launch("grace", true)
	for i := range learners {
		l := launch(fmt.Sprintf("user-%d", i), false).Session.Learner
		if n, err := grades.EnqueueLTIScore(ctx, l.ClassID, l.ID, "exercise:outlive-lease", 1, 1, false); err != nil || n != 1 {
			t.Fatalf("queue learner %d's score: %d, %v", i, n, err)
		}
	}

	s := openGradesStream(t, e.url, teacher.Class.Code, teacher.TeacherKey)
	if g := s.next("the panel on connect"); g.Waiting != learners {
		t.Fatalf("the panel on connect: %+v; want %d waiting", g, learners)
	}
	before := grades.reads.Load()
	gate := make(chan struct{})
	grades.mu.Lock()
	grades.gate = gate
	grades.mu.Unlock()
	if sent, err := e.tool.Deliver(ctx); err != nil || sent != learners {
		t.Fatalf("the worker sent %d scores (%v); want %d", sent, err, learners)
	}
	select {
	case <-grades.waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the dashboard did not read the panel again after the burst")
	}
	close(gate)
	if g := s.next("the panel after the burst"); g.Sent != learners || g.State != "sent" {
		t.Errorf("the panel after the burst: %+v; want all %d sent", g, learners)
	}
	if n := grades.reads.Load() - before; n > 3 {
		t.Errorf("%d scores sent in a burst read the panel %d times; want them merged into a read or two", learners, n)
	}
}
