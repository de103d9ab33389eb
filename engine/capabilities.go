package engine

import (
	"slices"
	"sync"
)

// Catalog is everything a scenario can hold: the registered backends with
// their node counts and options, the step kinds, the fault kinds with their
// fields and bounds, the message kinds a delay can hold, the storage tables
// and the bounds of a run. Validation reads it, and so can a form or a
// catalog, so that there is one list and never two that drift apart.
type Catalog struct {
	Backends   []BackendCapability `json:"backends"`
	Steps      []StepCapability    `json:"steps"`
	Faults     []FaultCapability   `json:"faults"`
	DelayKinds []string            `json:"delay_kinds"`
	Tables     []string            `json:"tables"`
	OnRefused  []string            `json:"on_refused"`
	Limits     Limits              `json:"limits"`

	// ClientOptions are a client's settings beside its name, start, steps
	// and on_refused: renewal and the careful client's options, each with
	// the setting it applies with (Needs).
	ClientOptions []FieldCapability `json:"client_options"`
}

// BackendCapability describes one lock-service backend, as its registry
// entry (Backend) declares it.
type BackendCapability struct {
	Name         string `json:"name"`
	Label        string `json:"label"`
	Nodes        []int  `json:"nodes"` // the node counts it accepts
	DefaultNodes int    `json:"default_nodes"`
	// Tokens: it hands out fencing tokens (fencing can be on); NoTokens
	// says why fencing cannot apply when it does not. Leader: it has a
	// node that leads (a fault may aim at "leader").
	Tokens   bool   `json:"tokens"`
	NoTokens string `json:"no_tokens,omitempty"`
	Leader   bool   `json:"leader"`
	// Follower is the role of a node that runs and does not lead.
	Follower string `json:"follower"`
	// Fields are the lock fields only some backends take, that this one
	// does (replication_lag, persist_every): switching to a backend that
	// lacks one means dropping it. Options are the same with their bounds.
	Fields  []string          `json:"fields"`
	Options []FieldCapability `json:"options"`
	// Description says in one line how it keeps the lock; Txn: a write
	// step may be guarded by a transaction on its store.
	Description string `json:"description,omitempty"`
	Txn         bool   `json:"txn,omitempty"`
	// LoseDisk: its nodes keep a log on disk that a lose_disk fault can
	// wipe.
	LoseDisk bool `json:"lose_disk,omitempty"`
	// TokenWord is what its tokens are called before their number ("rev");
	// Kinds are the event kinds it adds, with their documentation.
	TokenWord string           `json:"token_word,omitempty"`
	Kinds     []KindCapability `json:"kinds,omitempty"`
	// Holds: a client holds the lock while a majority of its nodes, each
	// on its own, granted it; the words are the legend's line for one
	// node's hold. Actor speaks for its nodes together (Backend.Actor).
	Holds string `json:"holds,omitempty"`
	Actor string `json:"actor,omitempty"`
}

// KindCapability is an event kind a backend adds (EventKind), with its
// documentation line.
type KindCapability struct {
	EventKind
	Doc string `json:"doc"`
}

// backendCapabilities describes every registered backend, in registry
// order.
func backendCapabilities() []BackendCapability {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]BackendCapability, 0, len(registry))
	for _, b := range registry {
		c := BackendCapability{Name: b.Name, Label: b.Label, Nodes: slices.Clone(b.Nodes), DefaultNodes: b.DefaultNodes,
			Tokens: b.Tokens, NoTokens: b.NoTokens, Leader: b.Leader, Follower: b.Follower,
			Fields: []string{}, Options: []FieldCapability{}, Description: b.Description, Txn: b.Txn, LoseDisk: b.diskLoss, TokenWord: b.TokenWord,
			Holds: b.Holds, Actor: b.Actor}
		for _, k := range b.Kinds {
			c.Kinds = append(c.Kinds, KindCapability{EventKind: k, Doc: k.Doc})
		}
		for _, o := range b.Options {
			c.Fields = append(c.Fields, o.Name)
			c.Options = append(c.Options, FieldCapability{Name: o.Name, Type: "duration", Min: float64(o.Min), Max: float64(o.Max)})
		}
		out = append(out, c)
	}
	return out
}

// StepCapability describes one step kind.
type StepCapability struct {
	Do     string            `json:"do"`
	Fields []FieldCapability `json:"fields"`
	// UsesLock: a scenario with this step runs a lock service.
	UsesLock bool `json:"uses_lock"`
}

// FaultCapability describes one fault kind.
type FaultCapability struct {
	Do string `json:"do"`
	// Targets lists what it may aim at: "client", "node", "leader" (the
	// node that leads when it strikes), or "side" (a partition's list).
	Targets []string          `json:"targets"`
	Fields  []FieldCapability `json:"fields"`
}

// FieldCapability describes one field of a step or fault besides "do" and
// "at".
type FieldCapability struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	// Type is how the value is written: "duration" (a Go duration string,
	// bounds in milliseconds), "signed_duration", "rate" (a number),
	// "amount" (an integer), "text", "delay_kind" (one of DelayKinds),
	// "target" or "side" (see the fault's Targets).
	Type string  `json:"type"`
	Min  float64 `json:"min,omitempty"`
	Max  float64 `json:"max,omitempty"`
	// OneOf names the field that may stand in its place (a write's add or
	// set, a partition's target or side): exactly one of them is given.
	OneOf string `json:"one_of,omitempty"`

	// Needs names the setting this one applies with: a careful client's
	// options need watch_lease, renew_timeout and stop_on_renew_timeout
	// need renew_every. Type "switch" is true or false.
	Needs []string `json:"needs,omitempty"`
}

// Limits are the bounds that keep one run small.
type Limits struct {
	Clients    int   `json:"clients"`
	Steps      int   `json:"steps"`
	Faults     int   `json:"faults"`
	Nodes      int   `json:"nodes"`
	Events     int   `json:"events"`
	UntilMS    int64 `json:"until_ms"`
	MinLeaseMS int64 `json:"min_lease_ms"`
	MinEveryMS int64 `json:"min_every_ms"` // renew_every, renew_timeout, retry_every, persist_every
	LatencyMS  int64 `json:"max_latency_ms"`
	LagMS      int64 `json:"max_replication_lag_ms"`
}

var catalog = sync.OnceValue(func() Catalog {
	dur := func(name string, required bool, min int64) FieldCapability {
		return FieldCapability{Name: name, Required: required, Type: "duration", Min: float64(min), Max: MaxUntil}
	}
	amount := func(name, other string) FieldCapability {
		return FieldCapability{Name: name, Type: "amount", Min: -MaxAmount, Max: MaxAmount, OneOf: other}
	}
	target := FieldCapability{Name: "target", Required: true, Type: "target"}
	needs := func(f FieldCapability, with ...string) FieldCapability { f.Needs = with; return f }
	return Catalog{
		Steps: []StepCapability{
			{Do: StepAcquire, Fields: []FieldCapability{}, UsesLock: true},
			{Do: StepRead, Fields: []FieldCapability{}},
			{Do: StepWork, Fields: []FieldCapability{dur("for", true, 1)}},
			{Do: StepCheck, Fields: []FieldCapability{}, UsesLock: true},
			{Do: StepWrite, Fields: []FieldCapability{amount("add", "set"), amount("set", "add")}},
			{Do: StepRelease, Fields: []FieldCapability{}, UsesLock: true},
			{Do: StepPause, Fields: []FieldCapability{dur("for", true, 1)}},
			{Do: StepCrash, Fields: []FieldCapability{}},
			{Do: StepClaim, Fields: []FieldCapability{}},
			{Do: StepSend, Fields: []FieldCapability{{Name: "message", Type: "text", Max: 64}, {Name: "idempotency_key", Type: "text", Max: 64}}},
		},
		Faults: []FaultCapability{
			{Do: FaultPause, Targets: []string{"client"}, Fields: []FieldCapability{target, dur("for", true, 1)}},
			{Do: FaultDelay, Targets: []string{"client"}, Fields: []FieldCapability{target, {Name: "kind", Required: true, Type: "delay_kind"}, dur("by", true, 1)}},
			{Do: FaultCrash, Targets: []string{"node", "leader", "client"}, Fields: []FieldCapability{target}},
			{Do: FaultRestart, Targets: []string{"node"}, Fields: []FieldCapability{target}},
			{Do: FaultLoseDisk, Targets: []string{"node", "leader"}, Fields: []FieldCapability{target}},
			{Do: FaultPartition, Targets: []string{"side", "node", "leader"}, Fields: []FieldCapability{
				{Name: "side", Type: "side", OneOf: "target"}, {Name: "target", Type: "target", OneOf: "side"}, dur("for", true, 1)}},
			{Do: FaultClockJump, Targets: []string{"client", "node"}, Fields: []FieldCapability{target, {Name: "by", Required: true, Type: "signed_duration", Min: -MaxUntil, Max: MaxUntil}}},
			{Do: FaultClockDrift, Targets: []string{"client", "node"}, Fields: []FieldCapability{target, {Name: "rate", Required: true, Type: "rate", Min: MinDriftRate, Max: MaxDriftRate}, dur("for", false, 1)}},
		},
		DelayKinds: []string{MsgWrite, MsgRenew, MsgRelease, MsgAcquire, MsgRead, MsgCheck, MsgSend},
		Tables:     []string{TableRecords, TableSeats},
		OnRefused:  []string{OnRefusedStop, OnRefusedRetry},
		Limits: Limits{Clients: MaxClients, Steps: MaxSteps, Faults: MaxFaults, Nodes: MaxNodes, Events: MaxEvents,
			UntilMS: MaxUntil, MinLeaseMS: minLease, MinEveryMS: minPeriod, LatencyMS: maxLatency, LagMS: maxLag},
		ClientOptions: []FieldCapability{
			dur("renew_every", false, minPeriod),
			needs(dur("renew_timeout", false, minPeriod), "renew_every"),
			dur("retry_every", false, minPeriod),
			{Name: "watch_lease", Type: "switch"},
			// A margin below the lease: validation bounds it by lock.lease.
			needs(FieldCapability{Name: "lease_margin", Type: "duration", Max: MaxUntil}, "watch_lease"),
			needs(FieldCapability{Name: "stop_on_renew_timeout", Type: "switch"}, "watch_lease", "renew_every"),
			needs(FieldCapability{Name: "interrupt", Type: "switch"}, "watch_lease"),
		},
	}
})

// Capabilities returns the catalog of what a scenario can hold, its
// backends read from the registry. Each call returns a fresh copy that the
// caller may change.
func Capabilities() Catalog {
	c := catalog()
	c.Backends = backendCapabilities()
	c.Steps = slices.Clone(c.Steps)
	for i := range c.Steps {
		c.Steps[i].Fields = slices.Clone(c.Steps[i].Fields)
	}
	c.Faults = slices.Clone(c.Faults)
	for i := range c.Faults {
		c.Faults[i].Targets = slices.Clone(c.Faults[i].Targets)
		c.Faults[i].Fields = slices.Clone(c.Faults[i].Fields)
	}
	c.DelayKinds = slices.Clone(c.DelayKinds)
	c.Tables = slices.Clone(c.Tables)
	c.OnRefused = slices.Clone(c.OnRefused)
	c.ClientOptions = slices.Clone(c.ClientOptions)
	for i := range c.ClientOptions {
		c.ClientOptions[i].Needs = slices.Clone(c.ClientOptions[i].Needs)
	}
	return c
}
