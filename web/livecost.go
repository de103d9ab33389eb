package web

import "github.com/leaselab/playground/engine"

// A live run costs CPU twice. When it starts it is simulated to its end
// (engine.Start): all its events at once, 30 to 60 us of CPU an event with
// a Raft group. Then it is played: each event is folded, encoded and sent
// when the wall clock reaches it, so the playing costs in proportion to
// the events it makes a wall second, its scenario's events per simulated
// second times its speed. Paced for watching, a preset makes a few events
// a second and costs next to nothing; a scenario whose ten clients renew
// every 10 ms makes about a thousand per simulated second, and at 50x that
// needs a slot of its own. So the speed alone does not say whether a run
// needs a slot: the rate does, and, for its start, the length of its
// simulation.

// DefaultLiveEventRate is the most events a wall second a live run may
// make on its live place alone: 200 runs at that rate, at about 50 us an
// event, take half a core. Faster, it takes a slot too.
const DefaultLiveEventRate = 50

// eventDensity estimates a scenario's events per simulated second from
// the prepared scenario, before it runs: each renewal and each retry is
// an event (a refused acquire retried every retry_every, the worst case),
// and the steps and faults spread over the scenario's length. It
// overestimates dense scenarios a little (measured: 613 events a simulated
// second for an estimate of 2,000) and never misses one by much: over
// presets changed at random, a run has at most 1.5 times the events
// estimated (TestTheEventEstimateHoldsOnRandomScenarios).
func eventDensity(sc engine.Scenario) float64 {
	until := max(float64(sc.Until.MS())/1000, 1)
	d := float64(len(sc.Faults)) * 2 / until
	for _, c := range sc.Clients {
		if ms := c.RenewEvery.MS(); ms > 0 {
			d += 1000 / float64(ms)
		}
		if ms := c.RetryEvery.MS(); ms > 0 {
			d += 1000 / float64(ms)
		}
		d += float64(len(c.Steps)) / until
	}
	return d
}

// SimulationSlotEvents is the most events a live run's simulation may
// have (estimated, simulatedEvents) and run on its live place alone: about
// 60 to 120 ms of CPU. A preset has 10 to 300. A longer one takes a slot
// for its simulation, in turn with everyone's runs (the slots' fair
// line), so that one client starting long scenarios by the hundred does not
// hold every other start back behind them.
const SimulationSlotEvents = 2000

// simulatedEvents estimates all the events of a scenario's run from its
// density (eventDensity): the density over its length, at most the
// engine's event limit.
func simulatedEvents(density float64, sc engine.Scenario) float64 {
	return min(density*max(float64(sc.Until.MS())/1000, 1), engine.MaxEvents)
}

// simulationNeedsSlot reports whether a live run's simulation is long
// enough to take a slot while it runs.
func simulationNeedsSlot(events float64) bool { return events > SimulationSlotEvents }

// needsSlot reports whether a live run of this event density at this
// speed takes a slot besides its live place: at full speed (0), or
// making more than LiveEventRate events a wall second.
func (s *Server) needsSlot(density, speed float64) bool {
	return speed == 0 || density*speed > s.cfg.LiveEventRate
}
