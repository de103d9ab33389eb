package engine_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test of the package must leave no goroutine behind: a run owns
// everything it started (Raft nodes, actors, the database).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
