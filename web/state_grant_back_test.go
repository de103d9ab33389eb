package web_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestFoldShowsAForgottenGrantThatCameBack: on async-replica runs where a
// grant the promoted replica forgot comes back (a deposed primary still
// held it, and the clients reach it again: grant_back), the lock panel
// shows its holder again from the grant_back on, and follows the
// renewals that node gives it. Before, grant_forgotten had cleared the
// panel and nothing filled it again: the lock looked free while its holder
// renewed it.
func TestFoldShowsAForgottenGrantThatCameBack(t *testing.T) {
	backs, renewals := 0, 0
	for _, seed := range []int64{70, 1036} {
		for _, fencing := range []bool{true, false} {
			sc, err := engine.GenerateScenario(t.Context(), seed, engine.ChaosOptions{Backend: engine.BackendAsyncReplica, Fencing: fencing})
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sc)
			s := web.NewState(sc)
			var back *engine.Event
			for _, e := range res.Events {
				s.Apply(e)
				switch {
				case e.Kind == engine.KindGrantBack:
					backs++
					back = &e
					if s.Lock.Holder != e.Holder || s.Lock.Token != e.Token || s.Lock.LeaseUntil != e.LeaseUntil || s.Lock.Node != e.Actor {
						t.Errorf("seed %d (fencing %v) at %s: %s's grant of token %d is back on %s until %s, the panel shows %+v",
							seed, fencing, engine.FormatMS(e.T), e.Holder, e.Token, e.Actor, engine.FormatMS(e.LeaseUntil), s.Lock)
					}
				case back != nil && e.Kind == engine.KindRenewed && e.Actor == back.Holder && e.Token == back.Token:
					renewals++
					if s.Lock.Holder != e.Actor || s.Lock.LeaseUntil != e.LeaseUntil {
						t.Errorf("seed %d (fencing %v) at %s: %s renewed its grant that came back until %s, the panel shows %+v",
							seed, fencing, engine.FormatMS(e.T), e.Actor, engine.FormatMS(e.LeaseUntil), s.Lock)
					}
				case back != nil && (e.Kind == engine.KindGrantForgotten || e.Kind == engine.KindReleased) && e.Token == back.Token:
					back = nil
				}
			}
		}
	}
	if backs == 0 || renewals == 0 {
		t.Fatalf("%d grants came back, %d renewals after: the seeds no longer show a grant coming back", backs, renewals)
	}
}
