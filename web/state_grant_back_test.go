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

// grantBackBesideScenario: node-1 grants client-2 the lock at 1s and is
// cut off alone at 1.2s, before the copy reaches node-2, which is promoted
// without it at 1.9s and grants client-1 the same token at 2s. node-2
// stays up: a second partition cuts node-1 off with client-2 from 2.8s to
// 8.8s, so when the first heals at 5.2s node-1, deposed, serves client-2
// its grant again (grant_back) beside node-2, which serves client-1 and
// renews it. At 8.8s node-1 rejoins as replica and node-2 forgets
// client-2's grant: client-1 holds the lock until it releases it at 10s.
func grantBackBesideScenario(t testing.TB) engine.Scenario {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"title":"A forgotten grant comes back beside another primary","seed":1,"fencing":true,"until":"30s",
		"lock":{"backend":"async-replica","nodes":2,"lease":"10s","first_token":33,"replication_lag":"500ms","election":"700ms"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-2","start":"1s","renew_every":"2s","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"12s"},{"do":"write","add":100},{"do":"release"}]},
		{"name":"client-1","start":"2s","renew_every":"2s","retry_every":"500ms","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"8s"},{"do":"write","add":10},{"do":"release"}]}],
		"faults":[{"at":"1200ms","do":"partition","target":"node-1","for":"4s"},{"at":"2800ms","do":"partition","side":["node-1","client-2"],"for":"6s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestFoldKeepsThePrimarysHolderBesideAGrantThatCameBack: while two
// primaries serve (grantBackBesideScenario), the grant that comes back on
// node-1, deposed, does not take the lock panel from client-1's grant by
// node-2, the primary that serves client-1 and renews it: from the
// grant_back until client-1 releases at 10s, the panel shows client-1,
// token 33, the lease node-2 last gave it, as the timeline's renewals say
// (and client-2's renewal refused at 9s: "token 33 is held by client-1").
// Before, the panel showed client-2 from 5.2s, left client-1's renewals
// out, and showed the lock free from 8.8s, when node-2 forgot client-2's
// grant, while client-1 held it.
func TestFoldKeepsThePrimarysHolderBesideAGrantThatCameBack(t *testing.T) {
	sc := grantBackBesideScenario(t)
	res := mustRun(t, sc)
	s := web.NewState(sc)
	var want web.LockRow
	back, checked := false, 0
	for _, e := range res.Events {
		s.Apply(e)
		switch {
		case e.Actor == "client-1" && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed):
			want = web.LockRow{Name: s.Lock.Name, Holder: e.Actor, Token: e.Token, LeaseUntil: e.LeaseUntil, Node: e.Node}
		case e.Actor == "client-1" && e.Kind == engine.KindReleased:
			back = false
		case e.Kind == engine.KindGrantBack:
			back = e.Actor == "node-1" && e.Holder == "client-2" && want.Node == "node-2"
		}
		if back {
			checked++
			if s.Lock != want {
				t.Errorf("at %s, after %s %s: the lock panel shows %+v, want client-1's grant by node-2 %+v", engine.FormatMS(e.T), e.Actor, e.Kind, s.Lock, want)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("%d events between the grant_back on node-1 and client-1's release: the scenario no longer brings a grant back beside another primary", checked)
	}
}

// TestFoldShowsTheGrantThatCameBackWhereTheClientsReachIt: as
// grantBackBesideScenario, but client-1 is cut off with node-1 and
// client-2 from 2.8s to 8.8s: from 5.2s every client reaches node-1
// alone, which serves client-2 its grant again (and refuses client-1 "held
// by client-2"), though node-2, which no client reaches, still leads.
// The panel shows client-2's grant by node-1, with its renewals, until
// node-2 forgets it at 8.8s; then client-1's grant, which node-2 kept
// beside it (client-2 is refused "held by client-1"), until client-1
// releases it at 10s; then the lock free.
func TestFoldShowsTheGrantThatCameBackWhereTheClientsReachIt(t *testing.T) {
	sc := grantBackBesideScenario(t)
	sc.Faults[1].Side = append(sc.Faults[1].Side, "client-1")
	res := mustRun(t, sc)
	s := web.NewState(sc)
	var back, primary, want web.LockRow
	phase := ""
	seen := map[string]int{}
	row := func(e engine.Event, holder string) web.LockRow {
		return web.LockRow{Name: s.Lock.Name, Holder: holder, Token: e.Token, LeaseUntil: e.LeaseUntil, Node: e.Node}
	}
	for _, e := range res.Events {
		s.Apply(e)
		switch {
		case e.Actor == "client-1" && e.Node == "node-2" && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed):
			primary = row(e, "client-1")
		case e.Kind == engine.KindGrantBack && e.Holder == "client-2":
			back, phase = row(e, "client-2"), "back"
		case phase == "back" && e.Actor == "client-2" && e.Kind == engine.KindRenewed && e.Node == "node-1":
			back = row(e, "client-2")
		case phase == "back" && e.Kind == engine.KindGrantForgotten && e.Holder == "client-2":
			phase = "forgotten"
		case phase == "forgotten" && e.Actor == "client-1" && e.Kind == engine.KindReleased:
			phase = "released"
		}
		switch phase {
		case "back":
			want = back
		case "forgotten":
			want = primary
		case "released":
			want = web.LockRow{Name: s.Lock.Name}
		default:
			continue
		}
		seen[phase]++
		if s.Lock != want {
			t.Errorf("at %s, after %s %s: the lock panel shows %+v, want %+v", engine.FormatMS(e.T), e.Actor, e.Kind, s.Lock, want)
		}
	}
	if seen["back"] == 0 || seen["forgotten"] == 0 || seen["released"] == 0 {
		t.Fatalf("events after the grant came back, after it was forgotten again, after client-1's release: %v; the scenario no longer shows them", seen)
	}
}

// TestFoldShowsTheGrantOfACrashedPrimaryUntilItIsForgotten: in
// async-replica's chaos seed 1036 (fencing on) node-2, the primary,
// grants client-2 token 35 at 30.8s and crashes at 30.961s, when node-1,
// deposed, brings client-2's grant of token 34 back. When that one runs
// out at 31.8s, the lock panel shows token 35 again, by node-2, as the
// timeline draws it, until node-1, primary again, forgets it at 35.843s;
// then the lock free until client-2 is granted token 35 anew at 37.3s.
// Before, the panel showed the lock free from 31.8s while the timeline
// drew token 35 running.
func TestFoldShowsTheGrantOfACrashedPrimaryUntilItIsForgotten(t *testing.T) {
	sc, err := engine.GenerateScenario(t.Context(), 1036, engine.ChaosOptions{Backend: engine.BackendAsyncReplica, Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	s := web.NewState(sc)
	var kept web.LockRow
	checked := 0
	for i, e := range res.Events {
		s.Apply(e)
		if e.Kind == engine.KindGranted && e.Actor == "client-2" && e.Token == 35 && kept.Holder == "" {
			kept = web.LockRow{Name: s.Lock.Name, Holder: e.Actor, Token: e.Token, LeaseUntil: e.LeaseUntil, Node: e.Node}
		}
		if i+1 < len(res.Events) && res.Events[i+1].T == e.T {
			continue // the panel shows the end of an instant
		}
		var want web.LockRow
		switch {
		case e.T >= 31800 && e.T < 35843:
			want = kept
		case e.T >= 35843 && e.T < 37300:
			want = web.LockRow{Name: s.Lock.Name}
		default:
			continue
		}
		checked++
		if s.Lock != want {
			t.Errorf("at %s, after %s %s: the lock panel shows %+v, want %+v", engine.FormatMS(e.T), e.Actor, e.Kind, s.Lock, want)
		}
	}
	if checked < 3 || kept.Node != "node-2" {
		t.Fatalf("%d events checked, token 35 granted %+v: the seed no longer shows a crashed primary's grant beside one that came back", checked, kept)
	}
}
