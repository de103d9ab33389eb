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
// Raft's own election and heartbeat timers run on the wall clock: that is
// the one, documented, exception, and it never reaches the timeline (events
// name the node the simulation treats as leader, and node-1 is made leader
// before a run starts). Randomness, where a scenario needs it, comes from
// the scenario's seed. Pacing (Options.Speed, Pause, Step) decides only when
// the next step is taken, never what it does.
//
// # Cleanup
//
// A run owns everything it started: the Raft nodes and their transports, the
// actor goroutines and the in-memory SQLite database. When the run ends, is
// stopped, or its context is cancelled, the scheduler ends every parked
// actor, each Raft node is shut down and waited for, and the database is
// closed, all before Wait returns and Done is closed. The package's tests
// check with goleak that no goroutine outlives a run.
//
// # Bounds
//
// Every number a scenario carries has a bound (see the Max constants and
// Prepare's errors, which name the field and the limit), and a run stops at
// MaxEvents events, so one run stays small whatever it is given.
package engine
