// Package admission decides when an engine run may start on a shared
// server, so that a burst of work waits its turn instead of starving every
// run of CPU at once.
//
// One Controller is shared by everything that runs the engine: live runs
// over the websocket, POST /api/run, the engine runs of exercise checks and
// chaos searches. It has two kinds of capacity, because runs cost two
// different things. Slots bound the runs going as fast as they can, whose
// cost is CPU: an API run, each run of a check, a live run at full speed.
// Live bounds the runs on a websocket, whose cost is memory (a Raft group,
// a database, goroutines) for as long as they are watched, and only a
// trickle of CPU while they are paced. Each kind has its own line, so a
// watched run never waits behind a check's runs, nor a check behind a
// classful of watched runs. A request that does not fit waits in its
// kind's line, bounded for both together, told its place as it moves, and
// starts when one of its kind frees.
//
// Fair shares. Each request belongs to a flow (a learner's session, or the
// client's address when it has none) and to an address. The queue is served
// in start-time fair order: a flow's next request is placed after the work
// it already had, so one learner's heavy answer (many engine runs, each its
// own request) interleaves with everyone else's runs instead of holding the
// line. Two hard caps bound what is held at once: a share per flow (so a
// client without a session, which is one flow, cannot take every slot) and
// a larger share per address (so a whole class behind one school NAT, many
// sessions on one address, can use most of the server but never all of it).
// An address has at most FlowsPerIP flows at once: a request of one more
// session joins the address's anonymous flow, so sessions made up by the
// hundred share one flow's turn and share. A ticket held long enough can
// Yield its place to a waiter that could start in it (never to one held
// back by its own caps). A request blocked only by its own caps is skipped for now (and so are
// the later requests of its flow and address, so that it is not starved by
// them); one blocked by the capacity stops its line.
//
// Decisions never depend on the wall clock: the order, the positions and
// the refusals follow from the requests and releases alone. The clock (an
// injectable Now) only measures waits. How long a caller may wait is its
// context's business.
//
// The package is the web server's; nothing outside web imports it.
package admission
