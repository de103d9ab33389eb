package lti_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/lti"
)

// TestHangingPlatformNeverGetsAScoreFromTwoWorkers: a platform that
// holds a score's post unanswered cannot keep a worker on it past its
// claim, even with an HTTP client that never times out: by the tool's
// clock the send is given up at SendTimeout, well inside the claim, and
// its try written, so the replica that sends it next is never sending it
// alongside. Before, nothing bounded the send but the client's timeout,
// so a worker could hold a post open while the claim ran out and a
// second worker claimed and posted the same score.
func TestHangingPlatformNeverGetsAScoreFromTwoWorkers(t *testing.T) {
	if lti.SendTimeout*2 > lti.ClaimLease {
		t.Fatalf("a send may last %v of a %v claim: not well inside it", lti.SendTimeout, lti.ClaimLease)
	}
	e := newQueueEnv(t)
	ctx := context.Background()
	// Two replicas on one store, whose HTTP clients never time out.
	worker := func() *lti.Tool {
		w := lti.New(lti.Config{Store: e.st, Now: e.clk.Now, AfterFunc: e.clk.AfterFunc, Client: &http.Client{}})
		t.Cleanup(w.Close)
		return w
	}
	a, b := worker(), worker()
	if err := e.tool.EnqueueScore(ctx, e.classID, e.learner, "ex", 1, 1); err != nil {
		t.Fatal(err)
	}
	held, dropped := e.plat.HangScores()
	// Whatever happens, the test ends with nothing held (the platform's
	// server waits for its requests when it closes).
	actx, stopA := context.WithCancel(ctx)
	t.Cleanup(func() {
		stopA()
		e.plat.ReleaseScores()
	})
	done := make(chan error, 1)
	go func() {
		_, err := a.Deliver(actx)
		done <- err
	}()
	<-held // the first worker's post is held at the platform

	e.clk.Advance(lti.SendTimeout - time.Second)
	if now, _ := e.plat.Hanging(); now != 1 {
		t.Fatalf("%d posts held a second before the send's bound; want the first worker's still waiting", now)
	}
	e.clk.Advance(time.Second) // the bound, a quarter of the claim
	// The guard only turns a worker stuck for good into a failure; what
	// is checked is that the bound by the tool's clock ended the send.
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the first worker's Deliver: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first worker is still on the hanging platform past its send's bound: once its claim runs out a second worker sends the score too")
	}
	jobs, err := e.st.LTIScoreJobs(ctx, 5)
	if err != nil || len(jobs) != 1 || jobs[0].Outcome != "" || jobs[0].Tries != 1 || !strings.Contains(jobs[0].LastError, "did not answer within 30s") {
		t.Fatalf("the score after the first worker gave up: %+v, %v; want it waiting, one try, said not answered in time", jobs, err)
	}
	if p := lti.Problem(jobs[0].LastError); p != "The course did not answer in time." {
		t.Errorf("the teacher is told %q", p)
	}

	// The claim runs out, and the platform, which saw the first post
	// go, answers again: the second worker sends the score, once, alone.
	<-dropped
	e.plat.ReleaseScores()
	e.clk.Advance(lti.ClaimLease)
	if n, err := b.Deliver(ctx); n != 1 || err != nil {
		t.Fatalf("the second worker's Deliver = %d, %v; want the score sent", n, err)
	}
	if got := e.plat.Scores(); len(got) != 1 {
		t.Errorf("the platform recorded %d scores; want 1", len(got))
	}
	if _, most := e.plat.Hanging(); most != 1 {
		t.Errorf("%d posts of the score were held at once; want 1", most)
	}
}
