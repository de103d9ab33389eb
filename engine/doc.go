// Package engine runs lease-lock scenarios: clients that take, renew and
// release a lock from a real lock service (a hashicorp/raft group, or a
// single server), write to a real SQL table that may check fencing tokens,
// and suffer injected faults. It turns a Scenario into a timeline of Events
// and a Summary, the contract of SCENARIOS.md.
//
// # Determinism
//
// The same scenario gives the same events, byte for byte, on every run and
// every machine. Simulated time is an integer of milliseconds that only the
// scheduler advances; nothing inside the simulated world reads the wall
// clock or sleeps. Every actor (a client's worker, its renewal loop) is a
// goroutine that runs only while it holds the scheduler's baton and hands
// it back whenever it blocks on a simulation primitive, so exactly one runs
// at a time, in (time, order, sequence) order. A command that reaches the
// Raft group is applied and committed in real time while simulated time
// stands still, so how fast Raft is that day never shows in the timeline.
// The simulation decides who leads and when (node-1 from the start; after a
// crash or a cut, the lowest-numbered node that reaches a majority and
// whose log that majority would vote for, lock.election later) and the
// real group is made to hold exactly that election: the chosen node is
// sent Raft's TimeoutNow and wins a real vote.
// Leader events carry the simulation's term (2 for node-1's first
// election, one more per election), which the real group reaches too.
// Raft's own heartbeat and election timers run on the wall clock and are
// kept calm (and held back while the simulation has no leader); when a
// starved machine makes them fire anyway, the command in flight is sent
// again, with the same request id, once the simulation's leader leads
// again, and simulated time does not move. That is the one, documented,
// exception to the wall clock never mattering, and it never reaches the
// timeline; what the real nodes report (Run.Nodes) is observed, not
// deterministic. A group from a RaftPool is indistinguishable from one
// booted for the run: its log holds only the bootstrap and node-1's
// election, and its state machines are replaced by fresh ones before the
// run begins. Randomness, where a scenario needs it, comes from the
// scenario's seed. Pacing (Options.Speed, Pause, Step) decides only when
// the next step is taken, never what it does.
//
// # Cleanup
//
// A run is simulated to its end when it starts (Start), as fast as the
// machine goes, and then played back at its pace: a live run holds its
// timeline, not its group (simulate.go, run.go). An injected fault or a
// stop simulates it again with the control written in at the step shown.
//
// A simulation owns everything it started: the Raft nodes and their
// transports, the actor goroutines and the in-memory SQLite database. When
// it ends, is stopped, or its context is cancelled, the scheduler ends
// every parked actor, each Raft node is shut down and waited for, and the
// database is closed, all before the simulation returns; so by the time
// Wait returns and Done is closed nothing of the run is left. A group taken from a
// RaftPool belongs to the run that took it and is shut down the same way;
// the pool's idle groups and its refilling goroutine belong to the pool and
// end at its Close. The package's tests check with goleak that no goroutine
// outlives a run or a closed pool.
//
// # Bounds
//
// Every number a scenario carries has a bound (see the Max constants and
// Prepare's errors, which name the field and the limit), and a run stops at
// MaxEvents events, so one run stays small whatever it is given.
package engine
