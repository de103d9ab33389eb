package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/web/admission"
)

// Config is what a Server needs. The zero value of each bound means "use the
// default"; Validate rejects the rest of what makes no sense.
type Config struct {
	// Logger receives request logs and errors; nil discards them.
	Logger *slog.Logger
	// RunSlots is how many runs going as fast as they can (POST /api/run,
	// the runs of an exercise check, a live run at full speed) may run at
	// once: about two per core (0: 2 x GOMAXPROCS). Past it they wait their
	// turn in the admission queue.
	RunSlots int
	// WarmRaftGroups keeps Raft lock groups booted ahead of time
	// (engine.RaftPool), sized from RunSlots, so that runs start without
	// waiting for an election; the timelines are the same byte for byte.
	// The command turns it on; the pool is drained by Shutdown.
	WarmRaftGroups bool
	// MaxLiveRuns is how many live runs (over the websocket) may run at
	// once. Paced for watching, a live run costs memory and little CPU, so
	// it takes a live place and no slot; at full speed (or making more
	// than LiveEventRate events a second) it takes a slot as well. Past it
	// they wait their turn. 0 sizes it from MemoryBudget and the cores
	// (LiveRunsFor).
	MaxLiveRuns int
	// RunQueue bounds the runs waiting their turn, all clients together
	// (0: 128 per slot); past it a request is told "busy, try again".
	RunQueue int
	// QueueWait bounds how long an HTTP request (a run, a check) waits for
	// a slot before it is answered 503 with Retry-After. A live run waits
	// as long as its browser likes, told its place.
	QueueWait time.Duration
	// SessionShare is the share of the slots one learner session (or one
	// address without a session) may hold at once; AddressShare the share
	// one address may hold, all its sessions together (a class behind a
	// school's NAT is one address). 0 takes admission's defaults (0.25 and
	// 0.75).
	SessionShare, AddressShare float64
	// SessionsPerAddress bounds the sessions (learners, visitors) one
	// address may have running or waiting at once; a request of one more
	// is admitted as the address's anonymous flow (0: 500, the largest class behind
	// one NAT).
	SessionsPerAddress int
	// LiveTurn bounds how long a live run may hold its place while others
	// wait for one: past it, a paused or very slow run is ended (its
	// browser told why) and the place goes to the next in line (0:
	// DefaultLiveTurn). With nobody waiting, a run lasts up to
	// MaxRunTime.
	LiveTurn time.Duration
	// LiveEventRate is the most events a wall second a live run may make
	// on its live place alone (0: DefaultLiveEventRate): its scenario's
	// estimated events per simulated second times its speed. A faster run
	// takes a slot too, so the slots bound the CPU whatever the pace.
	LiveEventRate float64
	// MaxConnections bounds the open websocket connections (0: a live
	// run's socket for each live place and a second tab for a quarter of
	// them, at least DefaultMaxConnections).
	MaxConnections int
	// ConnectionsPerAddress bounds the websockets one address may hold
	// open without a session the server issued (0:
	// DefaultConnectionsPerAddress, at most MaxConnections): one script
	// cannot take them all. Sockets of issued sessions (learners, signed
	// visitors) have ConnectionsPerSession places of their own each before
	// they take from it, and the whole address holds at most AddressShare
	// of MaxConnections, so a lecture hall behind one NAT fits.
	ConnectionsPerAddress int
	// ConnectionsPerSession is the places of its own each issued session
	// has for its websockets (0: DefaultConnectionsPerSession); more take
	// the address's share.
	ConnectionsPerSession int
	// IdleTimeout closes a websocket that starts no run for this long
	// after it opens or after its last run ends: an open socket costs a
	// place whether or not it runs anything. The page opens a new one
	// when Run is pressed.
	IdleTimeout time.Duration
	// MaxDashboardStreams bounds the teachers' live dashboard streams, in
	// a pool of their own so that no number of playground sockets keeps a
	// teacher from the dashboard; DashboardStreamsPerAddress is one
	// address's share of it (0: the defaults).
	MaxDashboardStreams, DashboardStreamsPerAddress int
	// MaxMessageBytes bounds one websocket message from the browser.
	MaxMessageBytes int64
	// MessageRate bounds the messages a connection may send a second (with
	// a burst of twice that); a connection that goes over is closed.
	MessageRate float64
	// MaxBodyBytes bounds a POST body.
	MaxBodyBytes int64
	// RunTimeout bounds the wall time of one POST /api/run once it has its
	// slot, and the time a check's runs may hold slots, all its runs
	// together: the CPU one request may use.
	RunTimeout time.Duration
	// ChaosTimeout bounds the wall time of one POST /api/chaos batch once
	// it has its slot (0: chaosTimeoutFactor times RunTimeout, 2m with the
	// default RunTimeout): a batch is many runs. Past it the batch is
	// stopped and answered 503.
	ChaosTimeout time.Duration
	// WriteTimeout bounds one websocket write: a browser that stops reading
	// for longer is dropped and its run cancelled, never allowed to stall it.
	WriteTimeout time.Duration
	// MaxRunTime bounds the wall time of one live run, pauses included, so
	// that a forgotten paused tab cannot hold a slot for ever.
	MaxRunTime time.Duration
	// MaxQueueBytes bounds the messages waiting for one browser, in bytes:
	// a browser that stops reading is dropped (close code 1008) when its
	// queue would pass it, and the queue freed.
	MaxQueueBytes int64
	// MemoryBudget is the memory the server plans for. The queues of every
	// websocket together may hold a quarter of it: past that, a browser that
	// is behind is dropped (close code 1013). The command sets the Go
	// runtime's soft memory limit to it too, and the collector's target to
	// GCPercent, unless GOMEMLIMIT or GOGC is set (ApplyMemoryBudget).
	MemoryBudget int64
	// PingInterval is how often an idle websocket is pinged; a browser that
	// does not answer within twice that is gone, and its run is ended.
	PingInterval time.Duration
	// SeparateMetrics keeps /metrics off the main handler: the command
	// serves MetricsHandler on its own address (--metrics-addr), which can
	// stay private.
	SeparateMetrics bool
	// MetricsToken, when set, is what a scrape of /metrics on the main
	// handler must carry (Authorization: Bearer); without it /metrics
	// there answers only clients on this machine.
	MetricsToken string
	// AllowedOrigins are extra origins (scheme://host[:port]) trusted as the
	// server's own: they may open a websocket and send the class and check
	// requests that other sites are refused.
	AllowedOrigins []string
	// Lessons is the lesson and exercise catalog; nil uses the embedded one.
	Lessons *lessons.Catalog
	// Classroom stores classes, learners and their attempts; nil runs the
	// server without classes (lessons and checks still work, unrecorded).
	Classroom classroom.Store
	// LTI makes the server an LTI 1.3 tool (routes under /lti/, and the
	// registered platforms may frame its pages); nil serves none. Its
	// store is the classroom's.
	LTI *lti.Tool
	// Class bounds the classroom's rate limits and dashboard streams (see
	// config_class.go).
	Class ClassConfig
	// OnScoreChange, when set, is called each time a class learner's best
	// score on an exercise changes (a better attempt, a teacher's score of
	// an open answer, a regrade), after the change is stored: what a
	// gradebook passback sends on. It runs on the request's goroutine, so
	// it must hand the work off rather than block. See class_credit.go.
	OnScoreChange func(context.Context, classroom.ScoreChange)
}

// Defaults for Config. A live run costs a Raft group and a database while
// it is simulated, then its timeline while it is played; see
// docs/web-benchmarks.md.
const (
	DefaultQueueWait          = 30 * time.Second
	DefaultRunQueuePerSlot    = admission.DefaultQueuePerSlot // RunQueue per slot
	DefaultSessionShare       = admission.DefaultFlowShare
	DefaultAddressShare       = admission.DefaultIPShare
	DefaultSessionsPerAddress = admission.DefaultFlowsPerIP
	// DefaultMaxConnections is the least MaxConnections is sized to.
	DefaultMaxConnections = 400
	// DefaultConnectionsPerAddress is a class of 200 without sessions, a
	// second tab for a quarter of them.
	DefaultConnectionsPerAddress = 250
	// DefaultConnectionsPerSession is a few tabs of one browser.
	DefaultConnectionsPerSession      = 4
	DefaultIdleTimeout                = time.Minute
	DefaultMaxDashboardStreams        = 200
	DefaultDashboardStreamsPerAddress = 40
	DefaultMaxMessageBytes            = 72 << 10 // a 64 KiB scenario and its envelope
	DefaultMessageRate                = 20
	DefaultMaxBodyBytes               = 72 << 10
	DefaultRunTimeout                 = 30 * time.Second
	DefaultWriteTimeout               = 10 * time.Second
	DefaultMaxRunTime                 = 20 * time.Minute
	DefaultLiveTurn                   = 5 * time.Minute
	DefaultPingInterval               = 20 * time.Second
	DefaultMaxQueueBytes              = 8 << 20 // a run of engine.MaxEvents at full speed, with room
	DefaultMemoryBudget               = 1 << 30
	// MinChaosTimeout and MaxChaosTimeout bound ChaosTimeout (the error
	// says "between 100ms and 1h").
	MinChaosTimeout = 100 * time.Millisecond
	MaxChaosTimeout = time.Hour
)

// withDefaults returns the config with zero bounds replaced by defaults.
func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.MemoryBudget == 0 {
		c.MemoryBudget = DefaultMemoryBudget
	}
	if c.MaxLiveRuns == 0 {
		c.MaxLiveRuns = LiveRunsFor(c.MemoryBudget, runtime.GOMAXPROCS(0))
	}
	if c.RunSlots == 0 {
		c.RunSlots = admission.DefaultSlotsPerCPU * runtime.GOMAXPROCS(0)
	}
	if c.QueueWait == 0 {
		c.QueueWait = DefaultQueueWait
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = max(DefaultMaxConnections, c.MaxLiveRuns+c.MaxLiveRuns/4)
	}
	if c.ConnectionsPerSession == 0 {
		c.ConnectionsPerSession = min(DefaultConnectionsPerSession, c.MaxConnections)
	}
	if c.ConnectionsPerAddress == 0 {
		c.ConnectionsPerAddress = min(DefaultConnectionsPerAddress, c.MaxConnections)
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxDashboardStreams == 0 {
		c.MaxDashboardStreams = DefaultMaxDashboardStreams
	}
	if c.DashboardStreamsPerAddress == 0 {
		c.DashboardStreamsPerAddress = min(DefaultDashboardStreamsPerAddress, c.MaxDashboardStreams)
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MessageRate == 0 {
		c.MessageRate = DefaultMessageRate
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.RunTimeout == 0 {
		c.RunTimeout = DefaultRunTimeout
	}
	if c.ChaosTimeout == 0 {
		c.ChaosTimeout = chaosTimeoutFactor * c.RunTimeout
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.MaxRunTime == 0 {
		c.MaxRunTime = DefaultMaxRunTime
	}
	if c.LiveEventRate == 0 {
		c.LiveEventRate = DefaultLiveEventRate
	}
	if c.LiveTurn == 0 {
		c.LiveTurn = DefaultLiveTurn
	}
	if c.PingInterval == 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.MaxQueueBytes == 0 {
		c.MaxQueueBytes = DefaultMaxQueueBytes
	}
	c.Class = c.Class.withDefaults()
	return c
}

// Validate reports the first bound that is out of range, naming its flag.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.MaxLiveRuns < 1 || c.MaxLiveRuns > 10000:
		return fmt.Errorf("max-live-runs: must be between 1 and 10000, not %d", c.MaxLiveRuns)
	case c.RunSlots < 1 || c.RunSlots > 10000:
		return fmt.Errorf("run-slots: must be between 1 and 10000, not %d", c.RunSlots)
	case c.QueueWait < 100*time.Millisecond || c.QueueWait > 10*time.Minute:
		return fmt.Errorf("queue-wait: must be between 100ms and 10m, not %s", c.QueueWait)
	case c.MaxConnections < 1 || c.MaxConnections > 100000:
		return fmt.Errorf("max-connections: must be between 1 and 100000, not %d", c.MaxConnections)
	case c.ConnectionsPerSession < 1 || c.ConnectionsPerSession > c.MaxConnections:
		return fmt.Errorf("connections-per-session: must be between 1 and max-connections (%d), not %d", c.MaxConnections, c.ConnectionsPerSession)
	case c.ConnectionsPerAddress < 1 || c.ConnectionsPerAddress > c.MaxConnections:
		return fmt.Errorf("connections-per-address: must be between 1 and max-connections (%d), not %d", c.MaxConnections, c.ConnectionsPerAddress)
	case c.IdleTimeout < 100*time.Millisecond || c.IdleTimeout > time.Hour:
		return fmt.Errorf("idle-timeout: must be between 100ms and 1h, not %s", c.IdleTimeout)
	case c.MaxDashboardStreams < 1 || c.MaxDashboardStreams > 100000:
		return fmt.Errorf("max-dashboard-streams: must be between 1 and 100000, not %d", c.MaxDashboardStreams)
	case c.DashboardStreamsPerAddress < 1 || c.DashboardStreamsPerAddress > c.MaxDashboardStreams:
		return fmt.Errorf("dashboard-streams-per-address: must be between 1 and max-dashboard-streams (%d), not %d", c.MaxDashboardStreams, c.DashboardStreamsPerAddress)
	case c.MaxMessageBytes < 1024 || c.MaxMessageBytes > 1<<20:
		return fmt.Errorf("max-message-bytes: must be between 1024 and 1048576, not %d", c.MaxMessageBytes)
	case c.MessageRate < 1 || c.MessageRate > 1000:
		return fmt.Errorf("message-rate: must be between 1 and 1000 a second, not %g", c.MessageRate)
	case c.MaxBodyBytes < 1024 || c.MaxBodyBytes > 1<<20:
		return fmt.Errorf("max-body-bytes: must be between 1024 and 1048576, not %d", c.MaxBodyBytes)
	case c.RunTimeout < time.Second || c.RunTimeout > 10*time.Minute:
		return fmt.Errorf("run-timeout: must be between 1s and 10m, not %s", c.RunTimeout)
	case c.ChaosTimeout < MinChaosTimeout || c.ChaosTimeout > MaxChaosTimeout:
		return fmt.Errorf("chaos-timeout: must be between 100ms and 1h, not %s", c.ChaosTimeout)
	case c.WriteTimeout < 100*time.Millisecond || c.WriteTimeout > time.Minute:
		return fmt.Errorf("write-timeout: must be between 100ms and 1m, not %s", c.WriteTimeout)
	case c.MaxRunTime < time.Second || c.MaxRunTime > 24*time.Hour:
		return fmt.Errorf("max-run-time: must be between 1s and 24h, not %s", c.MaxRunTime)
	case !(c.LiveEventRate >= 1 && c.LiveEventRate <= 1e6):
		return fmt.Errorf("live-event-rate: must be between 1 and 1000000 events a second, not %g", c.LiveEventRate)
	case c.LiveTurn < 100*time.Millisecond || c.LiveTurn > 24*time.Hour:
		return fmt.Errorf("live-turn: must be between 100ms and 24h, not %s", c.LiveTurn)
	case c.PingInterval < 10*time.Millisecond || c.PingInterval > 10*time.Minute:
		return fmt.Errorf("ping-interval: must be between 10ms and 10m, not %s", c.PingInterval)
	case c.MaxQueueBytes < 64<<10 || c.MaxQueueBytes > 1<<30:
		return fmt.Errorf("max-queue-bytes: must be between 64 KiB and 1 GiB, not %d", c.MaxQueueBytes)
	case c.MemoryBudget < 64<<20:
		return fmt.Errorf("memory-budget: must be at least 64 MiB, not %d bytes", c.MemoryBudget)
	case c.MaxQueueBytes > c.MemoryBudget/4:
		return fmt.Errorf("max-queue-bytes: must be at most a quarter of memory-budget (%d), not %d", c.MemoryBudget/4, c.MaxQueueBytes)
	}
	if c.LTI != nil && c.Classroom == nil {
		return fmt.Errorf("lti: the LTI tool needs a classroom store, where it makes the courses' classes")
	}
	if err := c.Class.validate(); err != nil {
		return err
	}
	return c.admission().Validate()
}

// admission is the admission controller's configuration.
func (c Config) admission() admission.Config {
	return admission.Config{Slots: c.RunSlots, Live: c.MaxLiveRuns, Queue: c.RunQueue, FlowShare: c.SessionShare, IPShare: c.AddressShare,
		FlowsPerIP: c.SessionsPerAddress}
}

// Sizing MaxLiveRuns by default (LiveRunsFor). A live run is simulated
// when it starts and then played back (engine.Run): while it plays it
// holds its timeline, its goroutines and its socket's queue, not a Raft
// group. That comes to about 350 KB resident a session with 1,000 sessions
// kept going, five runs each (docs/web-benchmarks.md, fourth pass), so
// half a MiB each leaves room for everything else. What bounds the count
// on the cores is the event lag: 1,000 sessions kept going on two cores
// held a p99 of 11 to 15 ms, 2,000 about 100 ms, so LiveRunsPerCore is
// 500.
const (
	LiveRunBytes    = 512 << 10
	LiveRunsPerCore = 500
	// MinLiveRuns is the least the sizing gives, however small the
	// machine: a class of 50.
	MinLiveRuns = 50
)

// LiveRunsFor is the default MaxLiveRuns for a memory budget and a number
// of cores: as many as both hold, at least MinLiveRuns and at most 10,000.
// 1 GiB and two cores give 1,000; 1 GiB and eight cores 2,048.
func LiveRunsFor(memoryBudget int64, cores int) int {
	byMemory := memoryBudget / LiveRunBytes
	byCPU := int64(max(cores, 1)) * LiveRunsPerCore
	return int(min(max(min(byMemory, byCPU), MinLiveRuns), 10000))
}

// sessionConnsMax is the most websockets one address may hold, its
// sessions' and the rest together: its share of the pool, as for runs.
func (c Config) sessionConnsMax() int {
	share := c.AddressShare
	if share == 0 {
		share = DefaultAddressShare
	}
	return max(c.ConnectionsPerAddress, int(math.Round(share*float64(c.MaxConnections))))
}
