package engine_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
	"go.uber.org/goleak"
)

// stepTo starts sc paused and steps it until n steps that said something
// were shown (or the run ended); it returns the run and its collector.
func stepTo(t *testing.T, sc engine.Scenario, n int) (*engine.Run, *collector) {
	t.Helper()
	return stepToWith(t, sc, n, engine.Options{})
}

// stepToWith is stepTo with opt's other options (its Turn, say).
func stepToWith(t *testing.T, sc engine.Scenario, n int, opt engine.Options) (*engine.Run, *collector) {
	t.Helper()
	col := newCollector()
	opt.Speed, opt.Paused, opt.Sink = 1000, true, col.sink
	r, err := engine.Start(t.Context(), mustPrepare(t, sc), opt)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		before := col.count()
		r.Step()
		deadline := time.After(10 * time.Second)
		for col.count() == before {
			select {
			case <-col.notify:
			case <-r.Done():
				return r, col
			case <-deadline:
				t.Fatalf("a step showed nothing after %d events", before)
			}
		}
		// A step's events are handed on one by one: wait for the last.
		for engine.Handed(r) != col.count() {
			select {
			case <-r.Done():
				return r, col
			case <-deadline:
				t.Fatalf("a step's events were handed on in part: %d of %d", col.count(), engine.Handed(r))
			case <-time.After(time.Millisecond):
			}
		}
	}
	return r, col
}

// sweepSteps calls at with sc stepped to k steps (stepTo), for k from
// first on, until the run ends before its kth step; ending before least
// steps fails the test.
func sweepSteps(t *testing.T, sc engine.Scenario, first, least int, at func(k int, r *engine.Run, col *collector)) {
	t.Helper()
	sweepStepsWith(t, sc, first, least, func() engine.Options { return engine.Options{} }, at)
}

// sweepStepsWith is sweepSteps with each run's other options from opt.
func sweepStepsWith(t *testing.T, sc engine.Scenario, first, least int, opt func() engine.Options, at func(k int, r *engine.Run, col *collector)) {
	t.Helper()
	for k := first; ; k++ {
		r, col := stepToWith(t, sc, k, opt())
		select {
		case <-r.Done():
			if k < least {
				t.Fatalf("the run ended after %d steps", k)
			}
			return
		default:
		}
		at(k, r, col)
	}
}

// TestInjectAnywhereKeepsWhatWasShown injects a fault after every step of
// a run in turn. A played run takes the fault by simulating again with it,
// so what the learner saw before it must come out the same, the fault must
// land at the moment shown, and the sink must see exactly the timeline
// Wait returns.
func TestInjectAnywhereKeepsWhatWasShown(t *testing.T) {
	for _, tc := range []struct {
		preset string
		fault  engine.Fault
	}{
		{"paused-holder", engine.Fault{Do: "pause", Target: "client-2", For: engine.Sec(5)}},
		{"raft-failover", engine.Fault{Do: "crash", Target: "node-2"}},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			sc := mustPreset(t, tc.preset, true)
			plain := mustRun(t, sc)
			sweepSteps(t, sc, 0, 3, func(k int, r *engine.Run, col *collector) {
				shown := col.count()
				at := int64(0)
				if shown > 0 {
					at = plain.Events[shown-1].T
				}
				if err := r.Inject(tc.fault); err != nil {
					t.Fatal(err)
				}
				r.Resume()
				res, err := r.Wait()
				if err != nil {
					t.Fatalf("after %d steps: %v", k, err)
				}
				col.mu.Lock()
				seen := jsonOf(t, col.events)
				col.mu.Unlock()
				if seen != jsonOf(t, res.Events) {
					t.Fatalf("after %d steps the sink saw another timeline than Wait returned", k)
				}
				if jsonOf(t, res.Events[:shown]) != jsonOf(t, plain.Events[:shown]) {
					t.Fatalf("after %d steps the events shown before the fault changed", k)
				}
				// The fault comes next: from its target, or said to be
				// ignored (a client that finished has nothing to pause).
				if e := res.Events[shown]; e.T != at || (e.Actor != tc.fault.Target && e.Kind != engine.KindFaultIgnored) {
					t.Fatalf("after %d steps (at %d ms) the fault should come next, from %s: %+v", k, at, tc.fault.Target, e)
				}
			})
		})
	}
}

// TestStoppedRunSummarizesWhatWasShown stops a run after every step in
// turn: it returns the events it showed, and a summary of the run up to
// there, not of the whole simulation it played from.
func TestStoppedRunSummarizesWhatWasShown(t *testing.T) {
	sc := mustPreset(t, "paused-holder", true)
	plain := mustRun(t, sc)
	sweepSteps(t, sc, 1, 5, func(k int, r *engine.Run, col *collector) {
		shown := col.count()
		r.Stop()
		res, err := r.Wait()
		if !errors.Is(err, engine.ErrStopped) {
			t.Fatalf("step %d: Wait after Stop: %v", k, err)
		}
		if jsonOf(t, res.Events) != jsonOf(t, plain.Events[:shown]) {
			t.Fatalf("step %d: a stopped run returned %d events, %d were shown", k, len(res.Events), shown)
		}
		if last := res.Events[len(res.Events)-1].T; res.Summary.EndMS != last || last > plain.Summary.EndMS {
			t.Fatalf("step %d: the stopped run should end at its last shown event (%d ms), no later than the whole run (%d ms): %+v", k, last, plain.Summary.EndMS, res.Summary)
		}
		if res.Summary.WritesAccepted+res.Summary.WritesRefused > plain.Summary.WritesAccepted+plain.Summary.WritesRefused {
			t.Fatalf("step %d: the stopped run counts more writes than the whole run: %+v", k, res.Summary)
		}
	})
}

// TestPlayedRunHoldsNoRaftGroup: while a run is played, its Raft group is
// gone (shut down when its simulation ended): a class of a
// thousand paced runs holds a thousand timelines, not a thousand groups.
func TestPlayedRunHoldsNoRaftGroup(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	col := newCollector()
	r, err := engine.Start(context.Background(), mustPrepare(t, mustPreset(t, "nightly-total", true)), engine.Options{Speed: 1, Sink: col.sink})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		r.Stop()
		r.Wait()
	}()
	col.waitFor(t, 1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		raft := raftGoroutines()
		if raft == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a played run still has %d Raft goroutines", raft)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-r.Done():
		t.Fatal("the run ended before the check: it should play for a minute")
	default:
	}
	nodes := r.Nodes()
	if len(nodes) != 3 {
		t.Fatalf("a played run should still report its three nodes as they were: %+v", nodes)
	}
	leaders := 0
	for _, n := range nodes {
		if n.Role == "leader" {
			leaders++
		}
	}
	if leaders != 1 {
		t.Errorf("the nodes as shown should have one leader: %+v", nodes)
	}
}

// raftGoroutines counts the goroutines running hashicorp/raft code.
func raftGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/hashicorp/raft.") {
			n++
		}
	}
	return n
}

// TestNodesAfterTheRun: once a played run ended, its nodes are as they
// reported themselves at its last step: three, one of them leading.
func TestNodesAfterTheRun(t *testing.T) {
	r, err := engine.Start(t.Context(), mustPrepare(t, mustPreset(t, "paused-holder", true)), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	nodes := r.Nodes()
	leaders := 0
	for _, n := range nodes {
		if n.Role == "leader" && n.CommitIndex > 0 {
			leaders++
		}
	}
	if len(nodes) != 3 || leaders != 1 {
		t.Errorf("after the run, want three nodes, one leading with a commit index: %s", fmt.Sprint(nodes))
	}
}

// TestEveryFollowerTookTheElection: the node panel of a run without
// faults never shows a follower that missed the election. A new group is
// handed to its run only once every follower holds the leader's term and
// log, so before the first step every node reports node-1's term and last
// entry, and at the end every follower still follows in that term with
// the election's entry. Before, on a busy machine, about one run in four
// ended with a follower still in term 1, or with nothing past the
// bootstrap, beside a timeline where it took every append.
func TestEveryFollowerTookTheElection(t *testing.T) {
	prepared := mustPrepare(t, mustPreset(t, "paused-holder", true))
	for i := range 40 {
		r, err := engine.Start(t.Context(), prepared, engine.Options{Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		first := r.Nodes()
		r.Resume()
		if _, err := r.Wait(); err != nil {
			t.Fatal(err)
		}
		last := r.Nodes()
		if len(first) != 3 || len(last) != 3 {
			t.Fatalf("run %d: nodes %v, then %v", i, first, last)
		}
		for _, n := range first {
			if n.Term != first[0].Term || n.LastLogIndex != first[0].LastLogIndex {
				t.Errorf("run %d, before its first step: %+v, want node-1's term %d and last entry %d", i, n, first[0].Term, first[0].LastLogIndex)
			}
		}
		for _, n := range last[1:] {
			if n.Role != "follower" || n.Term != first[0].Term || n.LastLogIndex < first[0].LastLogIndex {
				t.Errorf("run %d, at its end: %+v, want a follower in term %d holding entry %d at least", i, n, first[0].Term, first[0].LastLogIndex)
			}
		}
	}
}

// TestInjectedFaultsAreBounded: each fault injected live costs the run a
// simulation, so a run takes at most MaxInjected, and says so by name.
func TestInjectedFaultsAreBounded(t *testing.T) {
	sc := mustPreset(t, "paused-holder", true)
	sc.Faults = nil
	r, err := engine.Start(t.Context(), mustPrepare(t, sc), engine.Options{Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	f := engine.Fault{Do: "pause", Target: "client-1", For: engine.Ms(10)}
	for i := range engine.MaxInjected {
		if err := r.Inject(f); err != nil {
			t.Fatalf("fault %d: %v", i+1, err)
		}
	}
	err = r.Inject(f)
	if err == nil || !strings.Contains(err.Error(), "fault") || !strings.Contains(err.Error(), fmt.Sprint(engine.MaxInjected)) {
		t.Fatalf("fault %d: want an error naming the field and the limit, got %v", engine.MaxInjected+1, err)
	}
	r.Resume()
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(find(res, "client-1", engine.KindPauseStart)); got != engine.MaxInjected {
		t.Errorf("%d pauses in the timeline, want the %d taken", got, engine.MaxInjected)
	}
}

// TestTurnGatesEverySimulationAfterTheFirst: a run's simulations after its
// first (a fault injected, a stop) wait for its turn (Options.Turn), which
// is told what the simulation is for and how many events the last one
// had, and a turn refused ends the run at once with the refusal and what
// it showed.
func TestTurnGatesEverySimulationAfterTheFirst(t *testing.T) {
	sc := mustPreset(t, "paused-holder", true)
	sc.Faults = nil
	plain := mustRun(t, sc)
	col := newCollector()
	turns := newGatedTurns()
	r, err := engine.Start(t.Context(), mustPrepare(t, sc), engine.Options{Paused: true, Sink: col.sink, Turn: turns.turn})
	if err != nil {
		t.Fatal(err)
	}
	if n := turns.asked.Load(); n != 0 {
		t.Fatalf("the first simulation took %d turns, want none: it is the start's", n)
	}
	if err := r.Inject(engine.Fault{Do: "pause", Target: "client-1", For: engine.Sec(5)}); err != nil {
		t.Fatal(err)
	}
	r.Step()
	waitUntil(t, func() bool { return turns.asked.Load() == 1 })
	time.Sleep(20 * time.Millisecond)
	if n := col.count(); n != 0 {
		t.Fatalf("%d events shown while the fault waited for its turn", n)
	}
	turns.gate <- struct{}{}
	col.waitFor(t, 1)
	col.mu.Lock()
	first := col.events[0]
	col.mu.Unlock()
	if first.Kind != engine.KindPauseStart {
		t.Errorf("the fault should come first once its turn came: %+v", first)
	}
	r.Stop()
	waitUntil(t, func() bool { return turns.asked.Load() == 2 })
	turns.gate <- struct{}{}
	if _, err := r.Wait(); !errors.Is(err, engine.ErrStopped) {
		t.Fatalf("Wait after Stop: %v", err)
	}
	if turns.asked.Load() != 2 || turns.ended.Load() != 2 {
		t.Errorf("%d turns taken, %d ended; want 2 and 2", turns.asked.Load(), turns.ended.Load())
	}
	told := []engine.TurnAsk{<-turns.asks, <-turns.asks}
	// The first replay follows the plain run; the stop's, the run with
	// the fault (one event more, at least: the pause).
	if told[0].For != engine.TurnForFault || told[0].Events != len(plain.Events) || told[0].Stopped == nil ||
		told[1].For != engine.TurnForStop || told[1].Events <= told[0].Events || told[1].Stopped != nil {
		t.Errorf("turns were told %+v; want a fault's after %d events, then a stop's after more", told, len(plain.Events))
	}

	refused := errors.New("no slot: the line is full")
	col = newCollector()
	var asked atomic.Int32
	r, err = engine.Start(t.Context(), mustPrepare(t, sc), engine.Options{Paused: true, Sink: col.sink,
		Turn: func(context.Context, engine.TurnAsk) (func(), error) { asked.Add(1); return nil, refused }})
	if err != nil {
		t.Fatal(err)
	}
	r.Step()
	col.waitFor(t, 1)
	if err := r.Inject(engine.Fault{Do: "pause", Target: "client-1", For: engine.Sec(5)}); err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != refused {
		t.Fatalf("a refused turn should end the run with the refusal itself, got %v", err)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("%d turns asked for; a refused one ends the run without asking again for a summary", n)
	}
	if res.Summary != (engine.Summary{}) {
		t.Errorf("a run ended by a refused turn has a summary: %+v", res.Summary)
	}
	if len(res.Events) != col.count() {
		t.Errorf("the run returned %d events, it showed %d", len(res.Events), col.count())
	}
}

// TestAStopWhileAFaultWaitsTakesItsTurn: a run stopped while an injected
// fault waits for its turn does not wait twice, once for the fault and
// once for the stop, nor show a fault pressed before the stop: the turn
// is told the wait is the stop's now, and once it comes the run ends
// where it stood, summed up there, with the fault never struck: wherever
// the run stands when it happens.
func TestAStopWhileAFaultWaitsTakesItsTurn(t *testing.T) {
	sc := mustPreset(t, "paused-holder", true)
	sc.Faults = nil
	plain := mustRun(t, sc)
	var turns *gatedTurns // the current run's
	fresh := func() engine.Options { turns = newGatedTurns(); return engine.Options{Turn: turns.turn} }
	// Wherever the run stands when the fault is injected and then stopped.
	sweepStepsWith(t, sc, 1, 5, fresh, func(k int, r *engine.Run, col *collector) {
		shown := col.count()
		if err := r.Inject(engine.Fault{Do: "pause", Target: "client-1", For: engine.Sec(5)}); err != nil {
			t.Fatal(err)
		}
		ask := <-turns.asks
		select {
		case <-ask.Stopped:
			t.Fatalf("step %d: the fault's turn was told of a stop before any", k)
		default:
		}
		r.Stop()
		select {
		case <-ask.Stopped:
		case <-time.After(10 * time.Second):
			t.Fatalf("step %d: the fault's turn was never told that the run was stopped", k)
		}
		close(turns.gate)
		res, err := r.Wait()
		if !errors.Is(err, engine.ErrStopped) {
			t.Fatalf("step %d: Wait after Stop: %v", k, err)
		}
		if n, e := turns.asked.Load(), turns.ended.Load(); n != 1 || e != 1 {
			t.Errorf("step %d: %d turns asked, %d ended; want the fault's one, taken by the stop and ended", k, n, e)
		}
		if len(res.Events) != shown || col.count() != shown || jsonOf(t, res.Events) != jsonOf(t, plain.Events[:shown]) {
			t.Errorf("step %d: the stopped run returned %d events and showed %d; want the %d shown before the fault, and no fault", k, len(res.Events), col.count(), shown)
		}
		if got := find(res, "client-1", engine.KindPauseStart); len(got) != 0 {
			t.Errorf("step %d: the fault struck after the stop: %+v", k, got)
		}
		if res.Summary.EndMS != res.Events[shown-1].T {
			t.Errorf("step %d: the summary should end at the last event shown (%d ms): %+v", k, res.Events[shown-1].T, res.Summary)
		}
	})
}

// gatedTurns is an Options.Turn that counts the turns asked for and
// ended, hands each ask on (asks), and lets a turn through once gate is
// sent to or closed.
type gatedTurns struct {
	gate         chan struct{}
	asks         chan engine.TurnAsk
	asked, ended atomic.Int32
}

func newGatedTurns() *gatedTurns {
	return &gatedTurns{gate: make(chan struct{}), asks: make(chan engine.TurnAsk, 8)}
}

func (g *gatedTurns) turn(ctx context.Context, ask engine.TurnAsk) (func(), error) {
	g.asked.Add(1)
	g.asks <- ask
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return func() { g.ended.Add(1) }, nil
}

// waitUntil polls cond for up to ten seconds.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
	}
}

// TestADeadlineWhileAFaultWaitsSummarizesWhatWasShown: a run whose time
// runs out while an injected fault waits for its turn is not a refusal:
// it ends as any run past its deadline does, summed up to the step shown,
// once its stop has its turn.
func TestADeadlineWhileAFaultWaitsSummarizesWhatWasShown(t *testing.T) {
	sc := mustPreset(t, "paused-holder", true)
	ctx := newExpiring()
	col := newCollector()
	var asked []engine.TurnAsk // written and read on the run's goroutine, then after Wait
	faultWaits := make(chan struct{})
	turn := func(ctx context.Context, ask engine.TurnAsk) (func(), error) {
		asked = append(asked, ask)
		if ask.For == engine.TurnForFault {
			close(faultWaits)
			<-ctx.Done() // the line never frees for the fault
			return nil, errors.New("no slot came")
		}
		return func() {}, nil
	}
	r, err := engine.Start(ctx, mustPrepare(t, sc), engine.Options{Paused: true, Sink: col.sink, Turn: turn})
	if err != nil {
		t.Fatal(err)
	}
	r.Step()
	col.waitFor(t, 1)
	if err := r.Inject(engine.Fault{Do: "pause", Target: "client-1", For: engine.Sec(5)}); err != nil {
		t.Fatal(err)
	}
	r.Step()
	// The deadline comes while the fault waits for its turn, not before
	// the run took the fault up (then there is no fault's turn to ask).
	select {
	case <-faultWaits:
	case <-time.After(time.Minute):
		t.Fatal("the injected fault never asked for its turn")
	}
	ctx.expire()
	res, err := r.Wait()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait: %v, want the deadline", err)
	}
	if len(asked) != 2 || asked[1].For != engine.TurnForStop {
		t.Errorf("turns asked %+v, want the fault's and then the stop's", asked)
	}
	if res.Summary == (engine.Summary{}) || len(res.Events) != col.count() {
		t.Errorf("want the events shown (%d) and their summary, got %d events and %+v", col.count(), len(res.Events), res.Summary)
	}
}
