package web

import (
	"slices"
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
	// Role is the role of its nodes while up and not leading ("follower",
	// "replica", "server"): a sketch of the scenario before a run shows it.
	Role string `json:"role"`
	// Options are the settings only some backends take, with the bounds
	// the backend's registry entry declares (milliseconds). The page's
	// inputs carry them (OptionMax), so the page data leaves them out.
	Options []engine.FieldCapability `json:"-"`
	// Description says in one line how it keeps the lock (the backend
	// menu shows it under the choice).
	Description string `json:"description,omitempty"`
	// Token is what the timeline calls its tokens before their number
	// ("ticket 7"); Marks are the event kinds it adds to the timeline, as its
	// entry declares how to draw them (static/js/model.js reads them).
	Token string     `json:"token,omitempty"`
	Marks []KindMark `json:"marks,omitempty"`
	// Holds: each node grants on its own and a client holds the lock
	// while a majority did, so the timeline draws each node's grants as
	// holds and its nodes without a role (engine.Backend.Holds). Actor
	// speaks for its nodes together and gets no lane.
	Holds bool   `json:"holds,omitempty"`
	Actor string `json:"actor,omitempty"`
}

// KindMark is how the timeline draws an event kind a backend adds: the
// entry's declaration (engine.EventKind) without its legend line and
// documentation, which the page does not need to draw it. A kind with a
// shape is marked on its actor's lane, a node's unless Client.
type KindMark struct {
	Kind   string `json:"kind"`
	Client bool   `json:"client,omitempty"`
	Shape  string `json:"shape,omitempty"`
	Class  string `json:"class,omitempty"`
	Title  string `json:"title,omitempty"`
	Label  string `json:"label,omitempty"`
	Lease  bool   `json:"lease,omitempty"`
	Back   bool   `json:"back,omitempty"`
}

// OptionMax is the largest value, in milliseconds, that any backend takes
// for the lock option name (0 when none takes it): the bound of its input.
func (c Catalog) OptionMax(name string) int64 {
	var out int64
	for _, b := range c.Backends {
		for _, o := range b.Options {
			if o.Name == name {
				out = max(out, int64(o.Max))
			}
		}
	}
	return out
}

// Defaults are the engine's values for what a scenario leaves out, so the
// form shows the value a run will use (in ms).
type Defaults struct {
	// Backend is the lock service a scenario without one runs on, and
	// Key the storage row it writes.
	Backend      string `json:"backend"`
	Key          string `json:"key"`
	LeaseMS      int64  `json:"lease_ms"`
	UntilMS      int64  `json:"until_ms"`
	RetryEveryMS int64  `json:"retry_every_ms"`
}

// Catalog is everything the controls offer, in one place: a backend comes
// from the engine's registry with its words; a fault the engine gains
// needs one entry here; the page, the fault editor and the actor menus
// follow.
type Catalog struct {
	Faults     []FaultKind   `json:"faults"`
	Backends   []BackendKind `json:"backends"`
	DelayKinds []string      `json:"delay_kinds"`
	// ClientFields are the per-client settings besides start,
	// renew_every, retry_every and on_refused that the form offers.
	ClientFields []string `json:"client_fields"`
	Defaults     Defaults `json:"defaults"`
	MaxSpeed     float64  `json:"max_speed"`

	// legend are the marks the backends add to the timeline's legend.
	legend []LegendMark
}

var (
	catalogMu  sync.Mutex
	catalogGen = -1
	theCatalog Catalog
)

// TheCatalog returns the controls' catalog, built again whenever the
// engine's backend registry changed.
func TheCatalog() Catalog {
	catalogMu.Lock()
	defer catalogMu.Unlock()
	if gen := engine.RegistryGeneration(); gen != catalogGen {
		theCatalog, catalogGen = buildCatalog(), gen
	}
	return theCatalog
}

// faultWords are each fault's words in the fault list and in the actor
// menus, and the values a new one starts with. ID "partition-side" is a
// partition that takes clients with it.
var faultWords = map[string]struct {
	label, menu string
	defaults    map[string]any
}{
	engine.FaultPause:      {"pause (freeze a client)", "Freeze {target} for 15s", map[string]any{"for": "15s"}},
	engine.FaultDelay:      {"delay a message", "Hold {target}'s next write 10s", map[string]any{"kind": "write", "by": "10s"}},
	engine.FaultCrash:      {"crash a lock server", "Crash {target}", nil},
	engine.FaultRestart:    {"restart a lock server", "Restart {target}", nil},
	engine.FaultLoseDisk:   {"wipe a lock server's disk", "Wipe {target}'s disk", nil},
	engine.FaultPartition:  {"cut off a lock server", "Cut off {target} for 10s", map[string]any{"for": "10s"}},
	"partition-side":       {"cut off a client with a node", "Cut off {target} with the leader for 10s", map[string]any{"for": "10s"}},
	engine.FaultClockJump:  {"jump a clock", "Jump {target}'s clock 10s ahead", map[string]any{"by": "10s"}},
	engine.FaultClockDrift: {"drift a clock", "Make {target}'s clock run 2x fast", map[string]any{"rate": 2.0}},
}

// buildCatalog reads what the engine takes (engine.Capabilities) and adds
// the words the page shows, so the form never offers what the engine
// would refuse, nor misses what it gained.
func buildCatalog() Catalog {
	caps := engine.Capabilities()
	c := Catalog{
		DelayKinds:   caps.DelayKinds,
		ClientFields: []string{"renew_timeout", "watch_lease"},
		Defaults:     Defaults{Backend: engine.DefaultBackend, Key: engine.DefaultKey, LeaseMS: engine.DefaultLease, UntilMS: engine.DefaultUntil, RetryEveryMS: engine.DefaultRetryEvery},
		MaxSpeed:     engine.MaxSpeed,
	}
	for _, b := range caps.Backends {
		c.Backends = append(c.Backends, BackendKind{Name: b.Name, Label: b.Label, Nodes: b.Nodes, DefaultNodes: b.DefaultNodes,
			Fencing: b.Tokens, FencingWhy: b.NoTokens, Leader: b.Leader, Settings: b.Fields, Options: b.Options,
			Role: (&State{Backend: b.Name}).followerRole(), Description: b.Description, Token: b.TokenWord,
			Holds: b.Holds != "", Actor: b.Actor})
		if b.Holds != "" && !slices.ContainsFunc(c.legend, func(m LegendMark) bool { return m.ID == holdMark.ID }) {
			h := holdMark
			h.Label = b.Holds
			c.legend = append(c.legend, h)
		}
		for _, k := range b.Kinds {
			if k.Lane != "" || k.Lease || k.Back {
				m := KindMark{Kind: k.Kind, Client: k.Lane == "client", Class: k.Class, Title: k.Title, Label: k.Label, Lease: k.Lease, Back: k.Back}
				if k.Lane != "" {
					m.Shape = k.Shape
				}
				c.Backends[len(c.Backends)-1].Marks = append(c.Backends[len(c.Backends)-1].Marks, m)
			}
		}
		c.legend = kindLegend(c.legend, b.Kinds)
	}
	for _, f := range caps.Faults {
		var fields []string
		for _, fc := range f.Fields {
			if fc.Name != "side" {
				fields = append(fields, fc.Name)
			}
		}
		client, node := slices.Contains(f.Targets, "client"), slices.Contains(f.Targets, "node")
		targets := "client"
		switch {
		case client && node:
			targets = "any"
		case node:
			targets = "node"
		}
		c.Faults = append(c.Faults, faultKind(f.Do, f.Do, targets, fields, slices.Contains(f.Targets, "leader")))
		if slices.Contains(f.Targets, "side") {
			var side []string
			for _, name := range fields {
				if name != "target" {
					side = append(side, name)
				}
			}
			c.Faults = append(c.Faults, faultKind("partition-side", f.Do, "client", append([]string{"side"}, side...), false))
		}
	}
	return c
}

func faultKind(id, do, targets string, fields []string, leader bool) FaultKind {
	w, ok := faultWords[id]
	if !ok {
		w.label, w.menu = do, do+" {target}"
	}
	return FaultKind{ID: id, Do: do, Label: w.label, Menu: w.menu, Targets: targets, Fields: fields, Defaults: w.defaults, Leader: leader}
}
