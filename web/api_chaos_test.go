package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestAPIChaosIsTheCLIReport: POST /api/chaos answers with the report
// engine.Chaos gives for the same options (what `playground chaos --format
// json` prints), in the contract's shape, and every example's scenario,
// sent unchanged to /api/run, gives the example's summary again.
func TestAPIChaosIsTheCLIReport(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	status, out := post(t, ts.URL+"/api/chaos", `{"backend":"async-replica","fencing":true,"nodes":2,"runs":40,"seed":3}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, out)
	}
	var got engine.ChaosReport
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want, err := engine.Chaos(context.Background(), engine.ChaosOptions{Backend: "async-replica", Fencing: true, Nodes: 2, Runs: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jsonRoundTrip(t, want), got) {
		t.Errorf("the API's report differs from engine.Chaos:\n%s\nwant\n%s", out, mustJSON(t, want))
	}
	if got.Violations == 0 || got.ByKind.DuplicateToken == 0 || len(got.Examples) == 0 {
		t.Fatalf("an asynchronous replica hands tokens out twice: %+v", got)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"runs", "violations", "by_kind", "linearizability", "examples"} {
		if raw[key] == nil {
			t.Errorf("the report has no %q: %s", key, out)
		}
	}
	for _, ex := range got.Examples {
		status, body := post(t, ts.URL+"/api/run", mustJSON(t, ex.Scenario))
		if status != http.StatusOK {
			t.Fatalf("seed %d: /api/run refused the example: %d %s", ex.Seed, status, body)
		}
		var run struct{ Summary engine.Summary }
		if err := json.Unmarshal(body, &run); err != nil {
			t.Fatal(err)
		}
		if run.Summary != ex.Summary {
			t.Errorf("seed %d: /api/run gives %+v, the example says %+v", ex.Seed, run.Summary, ex.Summary)
		}
	}
	if n := srv.LiveRuns(); n != 0 {
		t.Errorf("%d live runs left after the requests", n)
	}
}

// TestAPIChaosDefaults: an empty body is the chaos command's defaults
// (100 runs of Raft with fencing from seed 1); Redlock without "fencing"
// runs without it rather than being refused.
func TestAPIChaosDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("100 Raft schedules")
	}
	ts, _ := startServer(t, web.Config{})
	for _, tc := range []struct {
		body, backend string
		runs, nodes   int
		fencing       bool
	}{
		{`{}`, "raft", 100, 3, true},
		{`{"backend":"redlock","runs":20}`, "redlock", 20, 5, false},
	} {
		status, out := post(t, ts.URL+"/api/chaos", tc.body)
		var rep engine.ChaosReport
		if status != http.StatusOK || json.Unmarshal(out, &rep) != nil {
			t.Fatalf("%s: %d %s", tc.body, status, out)
		}
		if rep.Runs != tc.runs || rep.Seed != 1 || rep.Backend != tc.backend || rep.Nodes != tc.nodes || rep.Fencing != tc.fencing {
			t.Errorf("%s: runs %d seed %d %s/%d fencing %v", tc.body, rep.Runs, rep.Seed, rep.Backend, rep.Nodes, rep.Fencing)
		}
	}
}

// TestAPIChaosBadInputNamesTheField: every bound is a 400 naming the
// field, unknown fields are refused, and nothing runs.
func TestAPIChaosBadInputNamesTheField(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	for _, tc := range []struct{ body, field string }{
		{`{"runs":0}`, "runs"},
		{fmt.Sprintf(`{"runs":%d}`, web.MaxAPIChaosRuns+1), "runs"},
		{`{"runs":"many"}`, "runs"},
		{`{"seed":-1}`, "seed"},
		{fmt.Sprintf(`{"seed":%d}`, engine.MaxChaosSeed+1), "seed"},
		{`{"backend":"consul"}`, "backend"},
		{`{"backend":"raft","nodes":4}`, "nodes"},
		{`{"backend":"single","nodes":2}`, "nodes"},
		{`{"backend":"redlock","nodes":9}`, "nodes"},
		{`{"backend":"redlock","fencing":true}`, "fencing"},
		{`{"fencing":"yes"}`, "fencing"},
		{`{"backend":"single","lose_disk":true}`, "lose_disk"},
		{`{"lose_disk":"yes"}`, "lose_disk"},
		{`{"runs":10,"workers":64}`, "workers"},
		{`{"kind":"rides"}`, "kind"},
		{`{"runs":`, "body"},
	} {
		status, out := post(t, ts.URL+"/api/chaos", tc.body)
		var e struct{ Error, Field, Code string }
		if err := json.Unmarshal(out, &e); err != nil {
			t.Errorf("%s: body %q is not JSON", tc.body, out)
			continue
		}
		if status != http.StatusBadRequest || e.Field != tc.field || !strings.HasPrefix(e.Error, tc.field+": ") || e.Code != "invalid" {
			t.Errorf("%s: %d %+v, want 400 naming %q", tc.body, status, e, tc.field)
		}
	}
	res, err := http.Post(ts.URL+"/api/chaos", "text/plain", strings.NewReader(`{"runs":1}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a text/plain body: %d, want 415", res.StatusCode)
	}
	if n := srv.LiveRuns(); n != 0 {
		t.Errorf("refused requests hold %d live runs", n)
	}
}

// TestAPIChaosSearchesClaims: kind "claims" searches races of clients
// that take no lock, as ride-claim's Find a failure asks, and finds no
// double claim.
func TestAPIChaosSearchesClaims(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, out := post(t, ts.URL+"/api/chaos", `{"kind":"claims","runs":20,"seed":100000}`)
	var rep engine.ChaosReport
	if err := json.Unmarshal(out, &rep); err != nil || status != http.StatusOK {
		t.Fatalf("%d %s", status, out)
	}
	if rep.Kind != engine.ChaosClaims || rep.Runs != 20 || rep.Violations != 0 || len(rep.Examples) != 0 {
		t.Errorf("claims search: %+v", rep)
	}
}

// TestAPIChaosTakesASlotAndMeetsItsDeadline: a batch holds a live-run
// slot, so with one slot a second request is told the server is busy; a
// batch that outlives its deadline ends with a 503 saying so, and gives
// its slot back. The deadline is ChaosTimeout (the --chaos-timeout flag):
// by default four run timeouts, 4 s here, which holds the slot while the
// second request is refused; set to its least, 100 ms, a fifth of the
// least that 1,000 Raft schedules take four at a time on any machine (each
// boots a group and runs for milliseconds), it is surely passed. The HTTP
// server's write timeout (1 s here, sized for one run) does not cut the
// batch's answer.
func TestAPIChaosTakesASlotAndMeetsItsDeadline(t *testing.T) {
	type answer struct {
		status int
		body   []byte
	}
	// One slot; a request waits for it at most 200 ms.
	serve := func(chaosTimeout time.Duration) (*web.Server, string, func() <-chan answer) {
		srv, err := web.NewServer(web.Config{RunSlots: 1, MaxLiveRuns: 1, RunTimeout: time.Second, QueueWait: 200 * time.Millisecond,
			ChaosTimeout: chaosTimeout})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewUnstartedServer(srv.Handler())
		ts.Config.WriteTimeout = time.Second
		ts.Start()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			ts.Close()
		})
		return srv, ts.URL, func() <-chan answer {
			out := make(chan answer, 1)
			go func() {
				res, err := http.Post(ts.URL+"/api/chaos", "application/json", strings.NewReader(`{"backend":"raft","runs":1000}`))
				if err != nil {
					out <- answer{0, []byte(err.Error())}
					return
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				out <- answer{res.StatusCode, b}
			}()
			return out
		}
	}

	srv, url, batch := serve(0)
	first := batch()
	waitFor(t, func() bool { return srv.LiveRuns() == 1 })
	status, out := post(t, url+"/api/chaos", `{"backend":"single","runs":1}`)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(out), `"code":"busy"`) {
		t.Errorf("a second batch with the only slot taken: %d %s", status, out)
	}
	a := <-first
	if a.status != http.StatusOK && (a.status != http.StatusServiceUnavailable || !strings.Contains(string(a.body), "took longer than 4s")) {
		t.Errorf("the first batch: %d %s, want its report or the default deadline of four run timeouts", a.status, a.body)
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })

	srv, _, batch = serve(100 * time.Millisecond)
	a = <-batch()
	if a.status != http.StatusServiceUnavailable || !strings.Contains(string(a.body), "took longer than 100ms") {
		t.Errorf("the batch past its deadline: %d %s", a.status, a.body)
	}
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonRoundTrip is v as a client decodes it from JSON.
func jsonRoundTrip(t *testing.T, v engine.ChaosReport) engine.ChaosReport {
	t.Helper()
	var out engine.ChaosReport
	if err := json.Unmarshal([]byte(mustJSON(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
