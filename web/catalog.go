package web

import (
	"sync"

	"github.com/leaselab/playground/engine"
)

// FaultKind describes one kind of fault the UI offers, in the fault list
// editor and in each actor's menu. Fields lists the fault's parameters
// besides "at" and "do".
type FaultKind struct {
	// ID names the kind; it is Do except where one fault takes two
	// shapes (a partition of one node, or of a side with clients).
	ID    string `json:"id"`
	Do    string `json:"do"`
	Label string `json:"label"`
	// Menu is the words of the actor menu's entry; {target} is replaced.
	Menu    string   `json:"menu"`
	Targets string   `json:"targets"` // "client", "node" or "any"
	Fields  []string `json:"fields"`
	// Defaults are the values a new fault (and a menu entry) starts with.
	Defaults map[string]any `json:"defaults"`
	// Leader says the fault may target "leader": whichever node leads.
	Leader bool `json:"leader"`
}

// BackendKind describes one lock-service backend and what applies to it.
type BackendKind struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Nodes []int  `json:"nodes"` // the node counts it accepts
	// DefaultNodes is what the engine uses when lock.nodes is not set.
	DefaultNodes int `json:"default_nodes"`
	// Fencing is false when the backend hands out no token; FencingWhy
	// says so in words, for the disabled switch.
	Fencing    bool   `json:"fencing"`
	FencingWhy string `json:"fencing_why,omitempty"`
	// Leader is true when one node leads (or is primary), so "crash the
	// leader" means something.
	Leader bool `json:"leader"`
	// Settings lists the lock settings that apply besides lease and
	// latency: "replication_lag", "persist_every", "election".
	Settings []string `json:"settings"`
}

// Defaults are the engine's values for what a scenario leaves out, so the
// form shows the value a run will use (in ms).
type Defaults struct {
	LeaseMS      int64 `json:"lease_ms"`
	UntilMS      int64 `json:"until_ms"`
	RetryEveryMS int64 `json:"retry_every_ms"`
}

// Catalog is everything the controls offer, in one place: a backend or
// fault the engine gains needs one entry here, and the page, the fault
// editor and the actor menus follow.
type Catalog struct {
	Faults     []FaultKind   `json:"faults"`
	Backends   []BackendKind `json:"backends"`
	DelayKinds []string      `json:"delay_kinds"`
	// ClientFields are the per-client settings besides start,
	// renew_every, retry_every and on_refused that the form offers.
	ClientFields []string `json:"client_fields"`
	Defaults     Defaults `json:"defaults"`
	MaxSpeed     float64  `json:"max_speed"`
}

var catalogOnce = sync.OnceValue(buildCatalog)

// TheCatalog returns the controls' catalog.
func TheCatalog() Catalog { return catalogOnce() }

func buildCatalog() Catalog {
	c := Catalog{
		Faults: []FaultKind{
			{ID: engine.FaultPause, Do: engine.FaultPause, Label: "pause (freeze a client)", Menu: "Freeze {target} for 15s", Targets: "client", Fields: []string{"target", "for"}, Defaults: map[string]any{"for": "15s"}},
			{ID: engine.FaultDelay, Do: engine.FaultDelay, Label: "delay a message", Menu: "Hold {target}'s next write 10s", Targets: "client", Fields: []string{"target", "kind", "by"}, Defaults: map[string]any{"kind": "write", "by": "10s"}},
			{ID: engine.FaultCrash, Do: engine.FaultCrash, Label: "crash a lock server", Menu: "Crash {target}", Targets: "node", Fields: []string{"target"}, Leader: true},
			{ID: engine.FaultRestart, Do: engine.FaultRestart, Label: "restart a lock server", Menu: "Restart {target}", Targets: "node", Fields: []string{"target"}},
			{ID: engine.FaultPartition, Do: engine.FaultPartition, Label: "partition a lock server", Menu: "Cut off {target} for 10s", Targets: "node", Fields: []string{"target", "for"}, Defaults: map[string]any{"for": "10s"}, Leader: true},
			{ID: engine.FaultClockJump, Do: engine.FaultClockJump, Label: "jump a clock", Menu: "Jump {target}'s clock 10s ahead", Targets: "any", Fields: []string{"target", "by"}, Defaults: map[string]any{"by": "10s"}},
		},
		Backends: []BackendKind{
			{Name: engine.BackendRaft, Label: "Raft group", Nodes: []int{1, 3, 5}, DefaultNodes: engine.DefaultNodes, Fencing: true, Leader: true, Settings: []string{"election"}},
			{Name: engine.BackendSingle, Label: "single server", Nodes: []int{1}, DefaultNodes: 1, Fencing: true, Settings: []string{"persist_every"}},
			{Name: engine.BackendAsyncReplica, Label: "primary + async replica", Nodes: []int{2}, DefaultNodes: 2, Fencing: true, Leader: true, Settings: []string{"replication_lag", "election"}},
			{Name: engine.BackendRedlock, Label: "Redlock (independent servers)", Nodes: []int{3, 5}, DefaultNodes: engine.DefaultRedlockN,
				Settings:   []string{},
				FencingWhy: "Redlock hands out no fencing token, so the storage has nothing to check: compare it with another backend instead."},
		},
		DelayKinds:   []string{engine.MsgWrite, engine.MsgRenew, engine.MsgRelease, engine.MsgAcquire, engine.MsgRead, engine.MsgCheck, engine.MsgSend},
		ClientFields: []string{"renew_timeout", "watch_lease"},
		Defaults:     Defaults{LeaseMS: engine.DefaultLease, UntilMS: engine.DefaultUntil, RetryEveryMS: engine.DefaultRetryEvery},
		MaxSpeed:     engine.MaxSpeed,
	}
	c.Faults = append(c.Faults,
		FaultKind{ID: "partition-side", Do: engine.FaultPartition, Label: "cut off a client with a node", Menu: "Cut off {target} with the leader for 10s", Targets: "client", Fields: []string{"side", "for"}, Defaults: map[string]any{"for": "10s"}},
		FaultKind{ID: engine.FaultClockDrift, Do: engine.FaultClockDrift, Label: "drift a clock", Menu: "Make {target}'s clock run 2x fast", Targets: "any", Fields: []string{"target", "rate", "for"}, Defaults: map[string]any{"rate": 2.0}},
	)
	return c
}
