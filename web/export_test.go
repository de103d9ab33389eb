package web

import "github.com/leaselab/playground/engine"

// SimulatedEvents exposes simulatedEvents to the tests.
func SimulatedEvents(sc engine.Scenario) float64 { return simulatedEvents(eventDensity(sc), sc) }
