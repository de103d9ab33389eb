package lessons_test

import (
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
