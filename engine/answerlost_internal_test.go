package engine

import (
	"context"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestLostAnswerKeptPending shows why a lost answer is recorded rather
// than dropped: without the renewal nobody heard about, the lock server's
// refusals to client-2 until 17 s contradict the model, and the checker
// would raise a false alarm.
func TestLostAnswerKeptPending(t *testing.T) {
	p, err := ParseScenario([]byte(`{"title":"lost answer","seed":1,"until":"40s",
	 "lock":{"backend":"single","lease":"10s"},
	 "clients":[
	  {"name":"client-1","renew_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"5s"},{"do":"crash"}]},
	  {"name":"client-2","start":"1s","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
	 "faults":[{"at":"2s","do":"delay","target":"client-1","kind":"renew","by":"5s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ops := res.History().ops
	var known []porcupine.Operation
	for _, o := range ops {
		if !o.Output.(lockOutput).Unknown {
			known = append(known, o)
		}
	}
	if len(known) != len(ops)-1 {
		t.Fatalf("want exactly one pending operation, got %d of %d", len(ops)-len(known), len(ops))
	}
	if porcupine.CheckOperations(LeaseLockModel, ops) != true {
		t.Errorf("with the pending renewal the history should be linearizable")
	}
	if porcupine.CheckOperations(LeaseLockModel, known) {
		t.Errorf("without the pending renewal the history should not be linearizable: the test cannot tell a dropped answer from a kept one")
	}
}
