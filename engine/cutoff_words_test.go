package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// cutOffScenario is a holder that renews and checks while client-2 waits
// for the lock; fault strikes at at and lasts for.
func cutOffScenario(t *testing.T, backend, fault string) engine.Scenario {
	t.Helper()
	steps := `{"do":"acquire"}`
	for i := 0; i < 8; i++ {
		steps += `,{"do":"work","for":"1s"},{"do":"check"}`
	}
	src := fmt.Sprintf(`{"title":"cut off","seed":1,"fencing":true,"until":"40s",
		"lock":{"backend":%q,"lease":"8s","persist_every":"500ms"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-1","renew_every":"2s","steps":[%s,{"do":"release"}]},
		{"name":"client-2","start":"1s","retry_every":"700ms","steps":[{"do":"acquire"},{"do":"release"}]}],
		"faults":[%s]}`, backend, steps, fault)
	if backend != "single" {
		src = strings.Replace(src, `,"persist_every":"500ms"`, "", 1)
	}
	sc, err := engine.DecodeScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestCutOffClientsAreToldSo: when a partition cuts the clients off from
// lock servers that are up, a request that gets no answer says the client
// was cut off from the lock service, not that no lock server answered,
// and the verdict says a partition kept every client away for the time
// (cut_off_ms, the whole of unavailable_ms). A server that is down keeps
// the old words, and counts nothing as cut off. Swept over the fault's
// time and length, on a single server and on Raft.
func TestCutOffClientsAreToldSo(t *testing.T) {
	type variant struct {
		backend string
		at, dur int64
	}
	var cases []variant
	for at := int64(1500); at <= 7500; at += 1500 {
		for _, dur := range []int64{600, 1800, 4000, 9000} {
			cases = append(cases, variant{"single", at, dur})
		}
	}
	cases = append(cases, variant{"raft", 2500, 4000}, variant{"raft", 5500, 1800})
	cutOff := 0
	for _, v := range cases {
		name := fmt.Sprintf("%s, %dms from %dms", v.backend, v.dur, v.at)
		part := fmt.Sprintf(`{"at":"%dms","do":"partition","side":["client-1","client-2"],"for":"%dms"}`, v.at, v.dur)
		res := mustRun(t, cutOffScenario(t, v.backend, part))
		for _, e := range res.Events {
			if e.Kind != engine.KindUnavailable {
				continue
			}
			cutOff++
			want := e.Actor + " was cut off from the lock service by a partition"
			if w := engine.Describe(e); !strings.Contains(w, want) || strings.Contains(w, "no lock server answered") {
				t.Errorf("%s: at %dms %q, want it to say %q", name, e.T, w, want)
			}
		}
		s := res.Summary
		verdict := engine.Verdict(s)
		if s.UnavailableMS > 0 {
			want := "a partition cut every client off from the lock service for " + engine.FormatMS(s.UnavailableMS)
			if s.CutOffMS != s.UnavailableMS || !strings.Contains(verdict, want) || strings.Contains(verdict, "no lock server answered") {
				t.Errorf("%s: cut_off_ms %d of unavailable_ms %d, verdict %q, want it to say %q", name, s.CutOffMS, s.UnavailableMS, verdict, want)
			}
		}

		// The same window with the server down: nobody was cut off.
		if v.backend != "single" {
			continue
		}
		down := fmt.Sprintf(`{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"restart","target":"node-1"}`, v.at, v.at+v.dur)
		res = mustRun(t, cutOffScenario(t, v.backend, down))
		for _, e := range res.Events {
			if w := engine.Describe(e); e.Kind == engine.KindUnavailable && strings.Contains(w, "cut off") {
				t.Errorf("%s, server down: at %dms %q blames a partition", name, e.T, w)
			}
		}
		if s := res.Summary; s.CutOffMS != 0 || (s.UnavailableMS > 0 && !strings.Contains(engine.Verdict(s), "no lock server answered for "+engine.FormatMS(s.UnavailableMS))) {
			t.Errorf("%s, server down: cut_off_ms %d, verdict %q", name, s.CutOffMS, engine.Verdict(s))
		}
	}
	if cutOff == 0 {
		t.Fatal("no request went unanswered during a partition: the sweep proves nothing")
	}
}

// TestCutOffFromTheLeaderNamesIt: a client cut off, with a follower, from
// the Raft leader that serves is told which node it could not reach; the
// other client still reaches the service, so nothing is unavailable.
func TestCutOffFromTheLeaderNamesIt(t *testing.T) {
	part := `{"at":"2500ms","do":"partition","side":["client-1","node-3"],"for":"4s"}`
	res := mustRun(t, cutOffScenario(t, "raft", part))
	seen := 0
	for _, e := range res.Events {
		if e.Kind != engine.KindUnavailable {
			continue
		}
		seen++
		if w := engine.Describe(e); !strings.Contains(w, "a partition cut client-1 off from node-1, which serves the lock") {
			t.Errorf("at %dms %q does not name the leader it could not reach", e.T, w)
		}
	}
	if seen == 0 {
		t.Fatal("client-1 was never left without an answer")
	}
	if s := res.Summary; s.UnavailableMS != 0 || s.CutOffMS != 0 {
		t.Errorf("unavailable_ms %d, cut_off_ms %d: client-2 reached the leader all along", s.UnavailableMS, s.CutOffMS)
	}
}

// TestALostAnswerIsNotNoServer: a check, a renewal or a release that the
// lock server applied, whose answer a partition then kept from the client, says its
// answer was lost, not that no lock server answered; and a release that
// was applied does not say the lease will run out. Swept over when the
// partition falls while the answers travel back.
func TestALostAnswerIsNotNoServer(t *testing.T) {
	for off := int64(10); off < 100; off += 20 {
		src := fmt.Sprintf(`{"title":"lost answers","seed":1,"fencing":true,"until":"30s",
			"lock":{"backend":"single","lease":"8s","latency":"100ms"},
			"storage":{"key":"account-42","initial":1000},
			"clients":[{"name":"client-1","renew_every":"1s","steps":[{"do":"acquire"},{"do":"work","for":"1s"},{"do":"check"},{"do":"work","for":"1s"},{"do":"release"}]}],
			"faults":[{"at":"%dms","do":"partition","side":["client-1"],"for":"200ms"},{"at":"%dms","do":"partition","side":["client-1"],"for":"200ms"}]}`,
			1300+off, 2500+off)
		sc, err := engine.DecodeScenario([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		res := mustRun(t, sc)
		lost := map[string]int{}
		for _, e := range res.Events {
			if e.Kind != engine.KindUnavailable {
				continue
			}
			lost[e.Message]++
			w := engine.Describe(e)
			if !strings.Contains(w, "its answer was lost on the way back") || strings.Contains(w, "no lock server answered") || strings.Contains(w, "the lease will run out") {
				t.Errorf("partition %dms into the answer's way back: %s at %dms %q", off, e.Message, e.T, w)
			}
		}
		if lost["check"] != 1 || lost["renew"] != 1 || lost["release"] != 1 {
			t.Errorf("partition %dms into the answer's way back: answers lost %v, want a check's, a renewal's and the release's", off, lost)
		}
	}
}

// TestAReleaseCutOffSaysWhetherTheLeaseRunsOn: a release that reaches no
// server says the lease will run out only while the lock service still
// counts it; once the service has ended it, the release says when it ran
// out. Swept over how long the holder works past its lease while cut off.
func TestAReleaseCutOffSaysWhetherTheLeaseRunsOn(t *testing.T) {
	var running, over int
	for work := int64(2000); work <= 14000; work += 1500 {
		src := fmt.Sprintf(`{"title":"release cut off","seed":1,"fencing":true,"until":"40s",
			"lock":{"backend":"single","lease":"8s"},
			"storage":{"key":"account-42","initial":1000},
			"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"%dms"},{"do":"release"}]}],
			"faults":[{"at":"1s","do":"partition","side":["client-1"],"for":"20s"}]}`, work)
		sc, err := engine.DecodeScenario([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		res := mustRun(t, sc)
		for _, e := range res.Events {
			if e.Kind != engine.KindUnavailable || e.Message != "release" {
				continue
			}
			w := engine.Describe(e)
			switch {
			case e.T < 8000:
				running++
				if !strings.HasSuffix(w, "; the lease will run out") {
					t.Errorf("released at %dms, lease until 8s: %q", e.T, w)
				}
			default:
				over++
				if !strings.HasSuffix(w, "; its lease had already run out at 8s") {
					t.Errorf("released at %dms, lease until 8s: %q", e.T, w)
				}
			}
		}
	}
	if running == 0 || over == 0 {
		t.Fatalf("releases within the lease: %d, after it: %d: the sweep proves nothing", running, over)
	}
}

// TestRedlockCutOffSaysHowManyAnswered: independent servers cut off from
// the clients by a partition leave them short of a majority; the request
// that fails says which servers the partition cut off and how many
// answered, a release says which servers it never reached (they still
// count the lease), and the verdict counts the time as the partition's. Servers
// that are down instead keep "no lock server answered". Swept over how
// many servers stand with the clients and when the partition falls.
func TestRedlockCutOffSaysHowManyAnswered(t *testing.T) {
	seen := 0
	for with := 0; with <= 2; with++ {
		for _, at := range []int64{1500, 2500, 4500} {
			side := `"client-1","client-2"`
			var cut []string
			for i := 1; i <= 5; i++ {
				if i <= with {
					side += fmt.Sprintf(`,"node-%d"`, i)
				} else {
					cut = append(cut, fmt.Sprintf("node-%d", i))
				}
			}
			src := fmt.Sprintf(`{"title":"redlock cut off","seed":1,"fencing":false,"until":"30s",
				"lock":{"backend":"redlock","nodes":5,"lease":"8s"},
				"storage":{"key":"account-42","initial":1000},
				"clients":[{"name":"client-1","renew_every":"2s","steps":[{"do":"acquire"},{"do":"work","for":"3s"},{"do":"check"},{"do":"release"}]},
				{"name":"client-2","start":"1s","retry_every":"2s","steps":[{"do":"acquire"},{"do":"release"}]}],
				"faults":[{"at":"%dms","do":"partition","side":[%s],"for":"4s"}]}`, at, side)
			sc, err := engine.DecodeScenario([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sc)
			name := fmt.Sprintf("%d servers with the clients, from %dms", with, at)
			list := strings.Join(cut[:len(cut)-1], ", ") + " and " + cut[len(cut)-1]
			for _, e := range res.Events {
				if e.Kind == engine.KindReleased && e.Actor == "client-1" {
					w := engine.Describe(e)
					want := "the release never reached " + list + ", which still count the lease until it runs out"
					if cutOff := e.T >= at && e.T < at+4000; cutOff != strings.Contains(w, want) || (!cutOff && strings.Contains(w, "never reached")) {
						t.Errorf("%s: at %dms %q (cut off: %v)", name, e.T, w, cutOff)
					}
				}
				if e.Kind != engine.KindUnavailable {
					continue
				}
				seen++
				want := fmt.Sprintf("a partition cut %s off from %s: %d of the 5 servers answered; 3 are needed", e.Actor, list, with)
				if w := engine.Describe(e); !strings.Contains(w, want) {
					t.Errorf("%s: at %dms %q, want it to say %q", name, e.T, w, want)
				}
			}
			if s := res.Summary; s.UnavailableMS > 0 && s.CutOffMS != s.UnavailableMS {
				t.Errorf("%s: cut_off_ms %d of unavailable_ms %d", name, s.CutOffMS, s.UnavailableMS)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no request went unanswered: the sweep proves nothing")
	}
}
