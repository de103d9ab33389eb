package engine

import "fmt"

// Scenario is the one input of the engine: who asks for the lock, what they
// do, which lock service they ask, what the storage checks and which faults
// strike when. Its JSON form is the contract of SCENARIOS.md. Question and
// Watch are for people: Question asks what to look at without its answer
// (a page shows it before the learner's first run); Watch tells what
// happens and which change fixes it (shown once the learner has run it).
type Scenario struct {
	Title    string   `json:"title,omitempty"`
	Question string   `json:"question,omitempty"` // what to look at, no answer (presets)
	Watch    string   `json:"watch,omitempty"`    // what happens and the fix (presets)
	Seed     int64    `json:"seed"`
	Fencing  bool     `json:"fencing"`
	Until    Duration `json:"until,omitzero"`
	Lock     Lock     `json:"lock"`
	Storage  Storage  `json:"storage"`
	Clients  []Client `json:"clients"`
	Faults   []Fault  `json:"faults,omitempty"`
}

// Backend names.
const (
	BackendRaft         = "raft"
	BackendSingle       = "single"
	BackendAsyncReplica = "async-replica"
)

// DefaultBackend is the backend of a scenario without lock.backend, and of
// chaos without one; the page compares a run against it first.
const DefaultBackend = BackendRaft

// Lock describes the lock service.
type Lock struct {
	Backend        string   `json:"backend,omitempty"`
	Nodes          int      `json:"nodes,omitempty"`
	Lease          Duration `json:"lease,omitzero"`
	FirstToken     int64    `json:"first_token,omitempty"`
	ReplicationLag Duration `json:"replication_lag,omitzero"`
	PersistEvery   Duration `json:"persist_every,omitzero"`
	Election       Duration `json:"election,omitzero"`
	Latency        Duration `json:"latency,omitzero"`
	// Name is the lock every client asks for; it defaults to the storage key.
	Name string `json:"name,omitempty"`
	// LockDelay is Chubby's lock-delay: after a lease ends without a
	// release, nobody is granted the lock for this long.
	LockDelay Duration `json:"lock_delay,omitzero"`
}

// Storage is the one record the clients read and write.
type Storage struct {
	// Table is the SQL table the record lives in: "records" (key, value,
	// fence, owner) or "seats" (seat, value, fence, hold_id).
	Table   string `json:"table,omitempty"`
	Key     string `json:"key,omitempty"`
	Initial int64  `json:"initial"`
}

// On-refused policies.
const (
	OnRefusedStop  = "stop"
	OnRefusedRetry = "retry"
)

// Client is one worker and the steps it runs in order.
type Client struct {
	Name       string   `json:"name"`
	Start      Duration `json:"start,omitzero"`
	RenewEvery Duration `json:"renew_every,omitzero"`
	// RenewTimeout is how long a renewal waits for its answer before it
	// is shown as timed out (renew_every when not set); the renewals do
	// not wait for one another either way.
	RenewTimeout Duration `json:"renew_timeout,omitzero"`
	RetryEvery   Duration `json:"retry_every,omitzero"`
	OnRefused    string   `json:"on_refused,omitempty"`
	// WatchLease makes a careful client: before each step it compares its
	// own clock with the lease it believes it holds, timed from when it
	// sent the acquire or renewal, and gives up when it ran out.
	WatchLease bool `json:"watch_lease,omitempty"`
	// LeaseMargin, for a careful client, is subtracted from every lease it
	// believes it holds, for clock drift and round trips.
	LeaseMargin Duration `json:"lease_margin,omitzero"`
	// StopOnRenewTimeout makes a careful client give the lock up at the
	// first renewal that gets no answer in time.
	StopOnRenewTimeout bool `json:"stop_on_renew_timeout,omitempty"`
	// Interrupt makes a careful client's lease watch stop a work step as
	// soon as the lease runs out, instead of at the next step.
	Interrupt bool   `json:"interrupt,omitempty"`
	Steps     []Step `json:"steps"`
}

// Step kinds.
const (
	StepAcquire = "acquire"
	StepRead    = "read"
	StepWork    = "work"
	StepCheck   = "check"
	StepWrite   = "write"
	StepRelease = "release"
	StepPause   = "pause"
	StepCrash   = "crash"
	StepClaim   = "claim"
	StepSend    = "send"
)

// Step is one action of a client.
type Step struct {
	Do  string   `json:"do"`
	For Duration `json:"for,omitzero"`
	// Add writes the value read plus Add; Set writes a constant.
	Add *int64 `json:"add,omitempty"`
	Set *int64 `json:"set,omitempty"`
	// Message names what a send step sends (one SMS per message is intended);
	// IdempotencyKey lets the provider drop repeats.
	Message        string `json:"message,omitempty"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Guard "txn" makes a write one transaction on the lock service's own
	// store that writes only while the lock key still has the writer's
	// token (a backend whose entry has Txn); empty: a write to the storage.
	Guard string `json:"guard,omitempty"`
	// Read is how a check step reads the lock (ReadLog when not set):
	// through the log, from the leader's state under its leader lease,
	// or from any node's state (readpath.go).
	Read string `json:"read,omitempty"`
}

// GuardTxn is the guard of a write that is a transaction on the lock
// service's store, compared against the lock key's token.
const GuardTxn = "txn"

// Fault kinds.
const (
	FaultPause      = "pause"
	FaultDelay      = "delay"
	FaultCrash      = "crash"
	FaultRestart    = "restart"
	FaultPartition  = "partition"
	FaultClockJump  = "clock_jump"
	FaultClockDrift = "clock_drift"
)

// Bounds of a clock drift's rate: what the clock reads per true second.
const (
	MinDriftRate = 0.1
	MaxDriftRate = 10.0
)

// SideStorage, listed in a partition's side, puts the storage on that side;
// otherwise it stays reachable from both.
const SideStorage = "storage"

// Message kinds a delay fault can hold back.
const (
	MsgWrite   = "write"
	MsgRenew   = "renew"
	MsgRelease = "release"
	MsgAcquire = "acquire"
	MsgRead    = "read"
	MsgCheck   = "check"
	MsgSend    = "send"
)

// TargetLeader aims a crash or partition at whichever node leads (or is
// primary) when the fault strikes.
const TargetLeader = "leader"

// Fault is something that strikes at an absolute simulated time.
type Fault struct {
	At     Duration `json:"at"`
	Do     string   `json:"do"`
	Target string   `json:"target,omitempty"`
	// Side lists what a partition cuts off together from the rest: lock
	// nodes (or "leader"), clients, and "storage" when the storage goes
	// with them. Target is the shorthand for a side of one node.
	Side []string `json:"side,omitempty"`
	For  Duration `json:"for,omitzero"`
	By   Duration `json:"by,omitzero"`
	// Rate is what a drifting clock reads per true second (clock_drift).
	Rate float64 `json:"rate,omitempty"`
	// Kind is the message kind a delay holds back.
	Kind string `json:"kind,omitempty"`
}

// key identifies a fault by every field, as a map key (a Fault itself is
// not comparable: a partition's side is a list).
func (f Fault) key() string {
	return fmt.Sprintf("%d|%s|%s|%q|%d|%d|%g|%s", f.At.MS(), f.Do, f.Target, f.Side, f.For.MS(), f.By.MS(), f.Rate, f.Kind)
}
