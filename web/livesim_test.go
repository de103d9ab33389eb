package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// longSparse is longSparseScenario as JSON.
func longSparse(t *testing.T) json.RawMessage {
	t.Helper()
	b, _ := json.Marshal(longSparseScenario(t))
	return b
}

// startLong starts longSparse at 10x on a new connection to url and
// waits until it plays.
func startLong(t *testing.T, url string) *wsClient {
	t.Helper()
	c := dial(t, url, nil)
	c.send(map[string]any{"type": "start", "scenario": longSparse(t), "speed": 10})
	c.started()
	return c
}

// pauseClient2 injects the fault these tests wait with: client-2 paused
// for 5 s.
var pauseClient2 = map[string]any{"type": "inject", "fault": map[string]any{"do": "pause", "target": "client-2", "for": "5s"}}

// untilStruck reads messages until client-2's injected pause shows, and
// returns those before it; a summary or an error first fails the test.
func (c *wsClient) untilStruck() []web.ServerMessage {
	c.t.Helper()
	var before []web.ServerMessage
	for {
		m := c.recv()
		switch {
		case m.Type == web.MsgEvent && m.Event.Actor == "client-2" && m.Event.Kind == engine.KindPauseStart:
			return before
		case m.Type == web.MsgSummary || m.Type == web.MsgError:
			c.t.Fatalf("the injected pause never showed: %+v", m)
		}
		before = append(before, m)
	}
}

// longSparseScenario is crashed-holder with an hour's lease, client-2
// retrying every second for the hour: a few events a second to play at
// 10x, but some 3,600 to simulate first.
func longSparseScenario(t *testing.T) engine.Scenario {
	t.Helper()
	p, err := engine.LoadPreset("crashed-holder")
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario
	for path, value := range map[string]string{"until": "1h", "lock.lease": "1h", "clients[client-2].retry_every": "1s"} {
		if sc, err = engine.SetField(sc, path, value); err != nil {
			t.Fatal(err)
		}
	}
	return sc
}

// TestALongSimulationTakesItsTurnForASlot: a live run is simulated to its
// end when it starts. A short one (every preset) starts on its live place
// alone; one whose simulation is long waits its turn for a slot, told its
// place, and gives the slot back once it plays, so that its hour of
// playing holds no slot; a fault injected into it waits for a slot again.
func TestALongSimulationTakesItsTurnForASlot(t *testing.T) {
	// One browser's three tabs, each free to use every place.
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1})
	holder := holdSlot(t, ts.URL)
	short := dial(t, ts.URL, nil)
	short.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 10})
	short.started() // on its live place alone, the slot taken
	long := dial(t, ts.URL, nil)
	long.send(map[string]any{"type": "start", "scenario": longSparse(t), "speed": 10})
	if pos := long.queued(); pos != 1 {
		t.Fatalf("the long simulation was told place %d, want 1", pos)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	long.started()
	// Playing, it holds its live place and no slot: a run at full speed
	// starts at once.
	if got := await(t, postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false)))); got.status != 200 {
		t.Errorf("an API run while the long run plays: %d %v", got.status, got.body)
	}
	// A fault injected into it simulates it again: that waits for a slot
	// too, and the fault shows once the slot frees. A short run's fault,
	// meanwhile, needs none and shows at once.
	holder = holdSlot(t, ts.URL)
	quick := dial(t, ts.URL, nil)
	quick.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 10, "paused": true})
	for m := quick.recv(); m.Type != web.MsgState; m = quick.recv() {
		if m.Type == web.MsgQueued || m.Type == web.MsgError {
			t.Fatalf("a short paused run: %+v", m)
		}
	}
	quick.send(pauseClient2)
	quick.send(map[string]any{"type": "step"})
	m := quick.recv()
	for ; m.Type != web.MsgEvent; m = quick.recv() {
		if m.Type == web.MsgQueued || m.Type == web.MsgError || m.Type == web.MsgSummary {
			t.Fatalf("a short run's injected fault should show at once, got %+v", m)
		}
	}
	if m.Event.Kind != engine.KindPauseStart {
		t.Fatalf("a short run's first event should be its injected fault, got %+v", m.Event)
	}
	long.send(pauseClient2)
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "fault" {
		t.Fatalf("the waiting fault was told %+v, want place 1 for the fault", m)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	long.untilStruck()
	// A stop simulates it again too, up to where it stands: that waits,
	// told its place, and the summary comes once the slot frees.
	holder = holdSlot(t, ts.URL)
	long.send(map[string]any{"type": "stop"})
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "stop" {
		t.Fatalf("the waiting stop was told %+v, want place 1 for the stop", m)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	if got := long.until(web.MsgSummary); !got[len(got)-1].Stopped {
		t.Errorf("the long run's summary after its stop: %+v", got[len(got)-1])
	}
}

// TestAStopWhileAFaultWaitsTakesItsPlace: a learner who stops a long run
// while its fault waits for a slot is told at once that the stop waits,
// in the fault's place; once the slot frees, the run ends where it stood,
// summed up there, after one wait, not two, and without the fault.
func TestAStopWhileAFaultWaitsTakesItsPlace(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1})
	long := startLong(t, ts.URL)
	holder := holdSlot(t, ts.URL)
	long.send(pauseClient2)
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "fault" {
		t.Fatalf("the waiting fault was told %+v, want place 1 for the fault", m)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	long.send(map[string]any{"type": "stop"})
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "stop" {
		t.Fatalf("the stop was told %+v, want the fault's place 1, for the stop", m)
	}
	if n := srv.QueuedRuns(); n != 1 {
		t.Fatalf("%d waiting for a slot after the stop, want the one wait the stop took over", n)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	got := long.until(web.MsgSummary)
	for _, m := range got[:len(got)-1] {
		switch {
		case m.Type == web.MsgQueued:
			t.Errorf("the stop waited in line again: %+v", m)
		case m.Type == web.MsgEvent && m.Event.Actor == "client-2" && m.Event.Kind == engine.KindPauseStart:
			t.Errorf("the fault struck after the stop: %+v", m.Event)
		}
	}
	if sum := got[len(got)-1]; !sum.Stopped || sum.Summary == nil {
		t.Errorf("the long run's summary after its stop: %+v", sum)
	}
}

// TestAStopRefusedInTheFaultsPlaceSaysTheStopCouldNotWait: a stop that
// took a waiting fault's place and is then refused its turn (the server
// shutting down) ends the run saying that the stop could not wait, not
// the fault the learner no longer waits for.
func TestAStopRefusedInTheFaultsPlaceSaysTheStopCouldNotWait(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1})
	long := startLong(t, ts.URL)
	holdSlot(t, ts.URL)
	long.send(pauseClient2)
	long.waitsInLine()
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	long.send(map[string]any{"type": "stop"})
	if m := long.waitsInLine(); m.Waiting != "stop" {
		t.Fatalf("the stop was told %+v, want the fault's place, for the stop", m)
	}
	srv.CloseLine()
	var m web.ServerMessage
	for m = long.recv(); m.Type != web.MsgError; m = long.recv() {
		if m.Type == web.MsgSummary {
			t.Fatalf("a stop refused its turn: got %+v", m)
		}
	}
	if !m.Stopped || !strings.Contains(m.Message, "the stop could not wait for a free slot") ||
		!strings.Contains(m.Message, "shutting down") || strings.Contains(m.Message, "fault") {
		t.Errorf("the refusal reads %+v", m)
	}
}

// TestAFaultWaitsInAFasterSpeedsPlace: a fault injected into a long run
// whose faster speed already waits for the slot waits in that place, told
// as the fault's, instead of joining the line again behind it; once the
// slot comes, the run goes at the new speed and the fault strikes.
func TestAFaultWaitsInAFasterSpeedsPlace(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1})
	long := startLong(t, ts.URL)
	holder := holdSlot(t, ts.URL)
	long.send(map[string]any{"type": "speed", "speed": 0})
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "new speed" {
		t.Fatalf("the faster speed was told %+v, want place 1 for the new speed", m)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	long.send(pauseClient2)
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "fault" {
		t.Fatalf("the fault was told %+v, want the new speed's place 1, for the fault", m)
	}
	if n := srv.QueuedRuns(); n != 1 {
		t.Fatalf("%d waiting for a slot, want the one wait the fault shares", n)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	fast := false
	for _, m := range long.untilStruck() {
		switch {
		case m.Type == web.MsgSpeed && m.Speed != nil && *m.Speed == 0:
			fast = true
		case m.Type == web.MsgQueued:
			t.Fatalf("before the fault struck: %+v", m)
		}
	}
	if !fast {
		t.Error("the fault struck, but the run was never told it goes as fast as possible")
	}
	if got := long.until(web.MsgSummary); got[len(got)-1].Stopped {
		t.Errorf("the run at full speed was stopped: %+v", got[len(got)-1])
	}
}

// TestASlowerSpeedLeavesTheWaitingFaultInLine: a faster speed given up
// (a slower one asked) while a fault waits in its place does not take the
// fault with it: the fault waits on its own, told its place, and strikes
// once the slot frees, the run going on at the slower speed.
func TestASlowerSpeedLeavesTheWaitingFaultInLine(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1})
	long := startLong(t, ts.URL)
	holder := holdSlot(t, ts.URL)
	long.send(map[string]any{"type": "speed", "speed": 0})
	long.waitsInLine()
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	long.send(pauseClient2)
	if m := long.waitsInLine(); m.Waiting != "fault" {
		t.Fatalf("the fault was told %+v", m)
	}
	long.send(map[string]any{"type": "speed", "speed": 5})
	if m := long.waitsInLine(); m.Position != 1 || m.Waiting != "fault" {
		t.Fatalf("once the faster speed was given up, the fault was told %+v, want place 1 for the fault", m)
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == 1 })
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	for _, m := range long.untilStruck() {
		if m.Type == web.MsgSpeed && *m.Speed != 5 {
			t.Fatalf("before the fault struck: %+v", m)
		}
	}
	long.send(map[string]any{"type": "stop"})
	long.until(web.MsgSummary)
}

// TestAFaultRefusedItsTurnEndsTheRunSayingWhy: a fault injected into a
// long run waits for a slot; when the line is full it is refused, and the
// run ends there with an error that says so, marked as ending the run
// (no summary follows), never as a simulation that failed.
func TestAFaultRefusedItsTurnEndsTheRunSayingWhy(t *testing.T) {
	const line = 4 // the least a line may hold: one session's share of it
	ts, srv := startServer(t, web.Config{RunSlots: 1, RunQueue: line, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1})
	long := startLong(t, ts.URL)
	holder := holdSlot(t, ts.URL)
	var waiting []<-chan reply
	for range line {
		waiting = append(waiting, postAsync(ts.URL+"/api/run", string(preset(t, "ride-claim", false))))
	}
	waitFor(t, func() bool { return srv.QueuedRuns() == line })
	long.send(pauseClient2)
	var m web.ServerMessage
	for m = long.recv(); m.Type != web.MsgError; m = long.recv() {
		if m.Type == web.MsgSummary || m.Type == web.MsgQueued {
			t.Fatalf("a fault refused its turn: got %+v", m)
		}
	}
	if !m.Stopped || !strings.Contains(m.Message, "the fault could not wait for a free slot") ||
		!strings.Contains(m.Message, "waiting for the server") || !strings.Contains(m.Message, "the run ended where it stood") {
		t.Errorf("the refusal reads %+v", m)
	}
	long.send(map[string]any{"type": "pause"})
	if m := long.recv(); m.Type != web.MsgError || m.Code != "no_run" {
		t.Errorf("after the refusal the run should be over, got %+v", m)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	for _, w := range waiting {
		if got := await(t, w); got.status != 200 {
			t.Errorf("an API run that filled the line: %d %v", got.status, got.body)
		}
	}
}

// TestAFaultWaitingWhenItsTabClosesLeavesNoVerdict: a tab closed while
// its run's fault waits for a slot ends the run as any closed tab does:
// no refusal, and no verdict in the log, which a run with no summary
// would get wrong.
func TestAFaultWaitingWhenItsTabClosesLeavesNoVerdict(t *testing.T) {
	var logs lockedBuffer
	ts, srv := startServer(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	long := startLong(t, ts.URL)
	holder := holdSlot(t, ts.URL)
	long.send(pauseClient2)
	long.waitsInLine()
	long.conn.Close()
	waitFor(t, func() bool { return srv.QueuedRuns() == 0 && strings.Contains(logs.String(), "live run ended") })
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "live run ended") && strings.Contains(line, "safe=") {
			t.Errorf("a run whose tab closed was logged with a verdict: %s", line)
		}
		if strings.Contains(line, "level=ERROR") {
			t.Errorf("an error logged: %s", line)
		}
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
}

// lockedBuffer is a bytes.Buffer safe for a logger and a test at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitsInLine reads a running run's messages until it is told a place in
// line, and returns that message.
func (c *wsClient) waitsInLine() web.ServerMessage {
	c.t.Helper()
	for {
		switch m := c.recv(); m.Type {
		case web.MsgQueued:
			return m
		case web.MsgSummary, web.MsgError:
			c.t.Fatalf("got %+v, want to be told a place in line", m)
		}
	}
}

// TestPresetsSimulateOnTheirLivePlace: no preset's simulation comes near
// being long enough to wait for a slot.
func TestPresetsSimulateOnTheirLivePlace(t *testing.T) {
	for _, p := range engine.Presets() {
		if n := web.SimulatedEvents(p.Prepared().Scenario()); 4*n > web.SimulationSlotEvents {
			t.Errorf("%s: %.0f events estimated, more than a quarter of SimulationSlotEvents (%d)", p.Name, n, web.SimulationSlotEvents)
		}
	}
}

// TestTheEventEstimateHoldsOnRandomScenarios: a live run's start takes a
// slot for its simulation by the events estimated (SimulatedEvents), as
// nothing else is known before it runs. Over presets changed at random
// (length, lease, backend, nodes, latency, the clients' renewals, retries
// and timeouts, up to eight faults), every run estimated short enough to
// simulate on its live place alone really has at most 1.5 times the
// events estimated (0.98 at most here; 1.34 over six thousand other
// draws), so no scenario slips a long simulation past the slots.
func TestTheEventEstimateHoldsOnRandomScenarios(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 2000))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	client := func(field string) string { return fmt.Sprintf("clients[%d].%s", rng.IntN(2), field) }
	fault := func() string {
		at, who := fmt.Sprintf("%dms", rng.IntN(20000)), fmt.Sprintf("client-%d", 1+rng.IntN(2))
		switch rng.IntN(5) {
		case 0:
			return fmt.Sprintf(`{"at":%q,"do":"pause","target":%q,"for":%q}`, at, who, pick("1s", "10s", "100s"))
		case 1:
			return fmt.Sprintf(`{"at":%q,"do":"crash","target":"leader"}`, at)
		case 2:
			return fmt.Sprintf(`{"at":%q,"do":"partition","side":[%q],"for":%q}`, at, who, pick("1s", "10s", "100s"))
		case 3:
			return fmt.Sprintf(`{"at":%q,"do":"clock_jump","target":%q,"by":%q}`, at, who, pick("1s", "-1s", "30s"))
		}
		return fmt.Sprintf(`{"at":%q,"do":"restart","target":"node-1"}`, at)
	}
	changes := []func() (string, string){
		func() (string, string) { return "until", pick("10s", "60s", "300s", "1h") },
		func() (string, string) { return "lock.lease", pick("50ms", "200ms", "1s", "10s", "1h") },
		func() (string, string) { return "lock.backend", pick(engine.Backends()...) },
		func() (string, string) { return "lock.nodes", pick("1", "3", "5") },
		func() (string, string) { return "lock.latency", pick("0", "5ms", "50ms", "500ms") },
		func() (string, string) { return client("renew_every"), pick("10ms", "100ms", "1s", "5s") },
		func() (string, string) { return client("retry_every"), pick("10ms", "100ms", "1s", "5s") },
		func() (string, string) { return client("on_refused"), pick("retry", "stop") },
		func() (string, string) { return client("renew_timeout"), pick("10ms", "1s") },
		func() (string, string) { return client("watch_lease"), pick("true", "false") },
		func() (string, string) {
			fs := fault()
			for range rng.IntN(8) {
				fs += "," + fault()
			}
			return "faults", "[" + fs + "]"
		},
	}
	presets := engine.Presets()
	tries := 1500
	if testing.Short() {
		tries = 500
	}
	ran, worst := 0, 0.0
	for range tries {
		sc := presets[rng.IntN(len(presets))].Scenario
		for range 1 + rng.IntN(6) {
			path, value := changes[rng.IntN(len(changes))]()
			if changed, err := engine.SetField(sc, path, value); err == nil {
				sc = changed
			}
		}
		p, err := engine.Prepare(sc)
		if err != nil {
			continue // a change the scenario's backend or clients do not take
		}
		estimate := web.SimulatedEvents(p.Scenario())
		if estimate > web.SimulationSlotEvents {
			continue // its simulation takes a slot
		}
		res, err := engine.Execute(context.Background(), p)
		if res == nil {
			t.Fatalf("%v", err)
		}
		ran++
		ratio := float64(len(res.Events)) / estimate
		worst = max(worst, ratio)
		if ratio > 1.5 {
			b, _ := json.Marshal(p.Scenario())
			t.Errorf("%d events where %.0f were estimated: %s", len(res.Events), estimate, b)
		}
	}
	t.Logf("%d runs, at most %.2f times the events estimated", ran, worst)
	if ran < tries/4 {
		t.Errorf("only %d of %d scenarios ran: the changes mostly fail", ran, tries)
	}
}
