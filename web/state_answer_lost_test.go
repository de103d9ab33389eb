package web_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// foldLostAnswers runs sc with node-1 crashing at each millisecond from
// from to to in steps of 10 (crash builds the scenario), folds every run's
// events, and calls check on the state after each answer_lost of op that
// carries what the check needs (want): it returns how many it checked.
func foldLostAnswers(t *testing.T, from, to int64, crash func(at int64) engine.Scenario, op string,
	want func(engine.Event) bool, check func(at int64, s *web.State, e engine.Event)) int {
	t.Helper()
	checked := 0
	for at := from; at <= to; at += 10 {
		sc := crash(at)
		res := mustRun(t, sc)
		s := web.NewState(sc)
		for _, e := range res.Events {
			s.Apply(e)
			if e.Kind == engine.KindAnswerLost && e.Message == op && want(e) {
				checked++
				check(at, &s, e)
			}
		}
	}
	return checked
}

// TestFoldHoldsAGrantWhoseAnswerDiedWithItsNode: wherever node-1's crash
// falls after it applied client-1's acquire and before the answer left
// (ambiguous-commit with the crash moved), the service holds the grant:
// from the answer_lost on, the lock panel shows client-1 holding token 33
// until its lease end, not a free lock until client-1 asks again.
func TestFoldHoldsAGrantWhoseAnswerDiedWithItsNode(t *testing.T) {
	p, err := engine.LoadPreset("ambiguous-commit")
	if err != nil {
		t.Fatal(err)
	}
	held := foldLostAnswers(t, 150, 200, func(at int64) engine.Scenario {
		sc := p.Prepared().Scenario()
		sc.Faults[0].At = engine.Ms(at)
		return sc
	}, "acquire", func(e engine.Event) bool { return e.Token != 0 }, func(at int64, s *web.State, e engine.Event) {
		if s.Lock.Holder != e.Client || s.Lock.Token != e.Token || s.Lock.LeaseUntil == 0 {
			t.Errorf("crash at %dms: after %s's answer_lost (%q) the lock panel shows %+v", at, e.Actor, e.Reason, s.Lock)
		}
	})
	if held == 0 {
		t.Fatal("no crash time lost an applied acquire's answer: the sweep tests nothing")
	}
}

// TestFoldExtendsALeaseWhoseRenewalsAnswerWasLost: wherever node-1's
// crash falls across client-1's renewal in renew-answer-lost (applied at
// 1.25 s, answered at 1.4 s), once the renewal's answer_lost is told the
// lock panel shows client-1's lease until the end the renewal gave it,
// 4.25 s, not 3.05 s, where the grant left it: meanwhile client-2 is
// refused "held by client-1 until 4.25s".
func TestFoldExtendsALeaseWhoseRenewalsAnswerWasLost(t *testing.T) {
	base := goldenScenarios(t)["renew-answer-lost"]
	extended := foldLostAnswers(t, 1250, 1400, func(at int64) engine.Scenario {
		sc := base
		sc.Faults = []engine.Fault{{At: engine.Ms(at), Do: engine.FaultCrash, Target: "node-1"}}
		return sc
	}, "renew", func(e engine.Event) bool { return e.LeaseUntil != 0 }, func(at int64, s *web.State, e engine.Event) {
		if s.Lock.Holder != e.Client || s.Lock.Token != e.Token || s.Lock.LeaseUntil != e.LeaseUntil {
			t.Errorf("crash at %dms: after %s's answer_lost (%q) the lock panel shows %+v", at, e.Actor, e.Reason, s.Lock)
		}
	})
	if extended == 0 {
		t.Fatal("no crash time lost an applied renewal's answer: the sweep tests nothing")
	}
}
