package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// denseScenario is ten clients renewing and retrying every 10 ms: about
// a thousand events a simulated second, a core's work at 50x.
func denseScenario(t *testing.T) json.RawMessage {
	t.Helper()
	one := int64(1)
	sc := engine.Scenario{Seed: 1, Fencing: true, Until: engine.Ms(60000), Lock: engine.Lock{Lease: engine.Ms(200)}}
	for i := range 10 {
		c := engine.Client{Name: fmt.Sprintf("c%d", i), RenewEvery: engine.Ms(10), RetryEvery: engine.Ms(10), OnRefused: "retry"}
		for range 12 {
			c.Steps = append(c.Steps, engine.Step{Do: "acquire"}, engine.Step{Do: "work", For: engine.Ms(50)}, engine.Step{Do: "write", Set: &one})
		}
		sc.Clients = append(sc.Clients, c)
	}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDenseLiveRunsPayForTheirCPU plays hole 3 of the hostile client: a
// script starts dense scenarios at 50x, paced, which used to take only a
// live place however much CPU they burnt. Charged by their event rate,
// they take slots: the script holds its address's share of the slots and
// its other runs wait their turn; a classmate at another address still
// gets its API runs through, and its preset at 50x (a few events a
// second) starts at once, on its live place alone.
func TestDenseLiveRunsPayForTheirCPU(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 4, MaxLiveRuns: 20, SessionShare: 0.75, QueueWait: time.Minute})
	dense := denseScenario(t)
	started, queued := 0, 0
	for range 6 {
		c := dialFrom(t, ts.URL, "127.0.0.2", nil)
		c.send(map[string]any{"type": "start", "scenario": dense, "speed": 50, "paused": true})
		for {
			m := c.recv()
			if m.Type == web.MsgQueued {
				queued++
				break
			}
			if m.Type == web.MsgState {
				started++
				break
			}
			if m.Type == web.MsgError {
				t.Fatalf("a dense run: %+v", m)
			}
		}
	}
	if started != 3 || queued != 3 {
		t.Errorf("of six dense runs at 50x %d started and %d waited, want 3 and 3 (the address's share of 4 slots)", started, queued)
	}
	mate := clientFrom("127.0.0.3")
	light := preset(t, "paused-holder", true)
	ok := 0
	for range 5 {
		if status, body, err := runFrom(mate, ts.URL, light); err == nil && status == http.StatusOK {
			ok++
		} else {
			t.Logf("a classmate's run: %d %s %v", status, body, err)
		}
	}
	if ok != 5 {
		t.Errorf("the classmate got %d of 5 API runs through, want 5", ok)
	}
	watched := dialFrom(t, ts.URL, "127.0.0.3", nil)
	watched.send(map[string]any{"type": "start", "scenario": light, "speed": 50})
	watched.started() // not told a place in line: no slot needed
	if n := srv.QueuedRuns(); n != 3 {
		t.Errorf("%d runs waiting, want the script's three", n)
	}
}
