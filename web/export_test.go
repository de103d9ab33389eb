package web

import (
	"time"

	"github.com/leaselab/playground/engine"
)

// SimulatedEvents exposes simulatedEvents to the tests.
func SimulatedEvents(sc engine.Scenario) float64 { return simulatedEvents(eventDensity(sc), sc) }

// CloseLine closes the server's line for slots, as a shutdown does first,
// without ending its runs: whatever waits in it is refused at once.
func (s *Server) CloseLine() { s.adm.Close() }

// LearnerReadRate exposes learnerReadRate to the tests.
func LearnerReadRate(poll time.Duration) Rate { return learnerReadRate(poll) }
