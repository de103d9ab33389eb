// Package admission decides when an engine run may start on a shared
// server, so that a burst of work waits its turn instead of starving every
// run of CPU at once.
//
// One Controller is shared by everything that runs the engine: live runs
// over the websocket, POST /api/run, the engine runs of exercise checks and
// chaos searches. Its capacity is a number of slots, one slot being one run
// going as fast as it can (about half a core); a run paced for watching
// costs a fraction of a slot, because it is idle between its events. A
// request that does not fit waits in a bounded queue, told its place as it
// moves, and starts when enough of a slot frees.
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
// A request blocked only by its own caps is skipped for now; one blocked by
// the capacity stops the line, so a run needing a whole slot is never
// starved by a stream of cheaper ones.
//
// Decisions never depend on the wall clock: the order, the positions and
// the refusals follow from the requests and releases alone. The clock (an
// injectable Now) only measures waits. How long a caller may wait is its
// context's business.
//
// The package is the web server's; nothing outside web imports it.
package admission
