package lessons_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestCheckerOffersARegisteredBackend: a scenario answer may choose a
// backend registered from a test file (here the single server's service
// under a new name); before it is registered the checker refuses the name
// and says what it takes, after it grades a real run of it.
func TestCheckerOffersARegisteredBackend(t *testing.T) {
	c := mustCatalog(t)
	const answer = `{"lock.backend":"toy-server","lock.persist_every":"1s"}`
	before := check(t, c, "duplicate-token-backend", answer)
	if before.FormatError == "" || !strings.Contains(before.FormatError, `not "toy-server"`) {
		t.Fatalf("an unknown backend was read: %+v", before)
	}
	b, _ := engine.LookupBackend(engine.BackendSingle)
	b.Name = "toy-server"
	if err := engine.RegisterBackend(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend("toy-server") })
	r := check(t, c, "duplicate-token-backend", answer)
	if r.FormatError != "" || !r.Graded || r.Timeline == nil {
		t.Fatalf("the toy backend was not graded: %+v", r)
	}
	if got := r.Timeline.Scenario.Lock.Backend; got != "toy-server" {
		t.Errorf("graded a run of %q", got)
	}
	// The single server's save behaviour, under the toy's name: the same
	// verdict as the single server gets.
	if !r.Correct || r.Timeline.Summary.DuplicateTokens != 1 {
		t.Errorf("the toy restarting from a save before the grant: %s", r.Feedback)
	}
}

// TestCheckerGradesACopyWithItsOwnStore: a copy of zookeeper registered
// under another name brings its entry's state machine store, lock service
// and event kinds with it; the checker grades a run of it like any other,
// with nothing of its own for it: ZooKeeper's watch, and czxid tokens that
// skip the zxids its sessions took.
func TestCheckerGradesACopyWithItsOwnStore(t *testing.T) {
	c := mustCatalog(t)
	b, _ := engine.LookupBackend(engine.BackendZooKeeper)
	b.Name = "toy-ensemble"
	if err := engine.RegisterBackend(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend("toy-ensemble") })
	r := check(t, c, "duplicate-token-backend", `{"lock.backend":"toy-ensemble"}`)
	if r.FormatError != "" || !r.Graded || r.Timeline == nil || r.Timeline.Scenario.Lock.Backend != "toy-ensemble" {
		t.Fatalf("the copy was not graded: %+v", r)
	}
	var kinds []string
	var grants []int64
	for _, e := range r.Timeline.Events {
		kinds = append(kinds, e.Kind)
		if e.Kind == engine.KindGranted {
			grants = append(grants, e.Token)
		}
	}
	if !slices.Contains(kinds, engine.KindWatching) || !slices.Contains(kinds, engine.KindWatchFired) {
		t.Errorf("the copy's run has no watch: %v", kinds)
	}
	if len(grants) != 2 || grants[1]-grants[0] < 2 {
		t.Errorf("grants %v: want two czxids with the second waiter's session between them", grants)
	}
	if r.Correct || r.Timeline.Summary.DuplicateTokens != 0 {
		t.Errorf("a ZooKeeper copy handed out a token twice: %s", r.Feedback)
	}
}
