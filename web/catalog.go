package web

import (
	"sync"

	"github.com/leaselab/playground/engine"
)

// FaultKind describes one kind of fault the UI offers, in the fault list
// editor and as a live button. Fields lists the fault's parameters besides
// "at" and "do".
type FaultKind struct {
	Do      string   `json:"do"`
	Label   string   `json:"label"`
	Live    string   `json:"live"`    // the live button's words; {target} is replaced
	Targets string   `json:"targets"` // "client", "node" or "any"
	Fields  []string `json:"fields"`
	// Defaults are the values a new fault (and a live button) starts with.
	Defaults map[string]string `json:"defaults"`
}

// BackendKind describes one lock-service backend.
type BackendKind struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Nodes []int  `json:"nodes"` // the node counts it accepts
}

// Catalog is everything the controls offer, in one place: a backend or
// fault the engine gains needs one entry here, and the page, the fault
// editor and the live buttons follow.
type Catalog struct {
	Faults     []FaultKind   `json:"faults"`
	Backends   []BackendKind `json:"backends"`
	DelayKinds []string      `json:"delay_kinds"`
	Speeds     []float64     `json:"speeds"`
}

var catalogOnce = sync.OnceValue(buildCatalog)

// TheCatalog returns the controls' catalog.
func TheCatalog() Catalog { return catalogOnce() }

func buildCatalog() Catalog {
	c := Catalog{
		Faults: []FaultKind{
			{Do: engine.FaultPause, Label: "pause (freeze a client)", Live: "Freeze {target} for 15s", Targets: "client", Fields: []string{"target", "for"}, Defaults: map[string]string{"for": "15s"}},
			{Do: engine.FaultDelay, Label: "delay a message", Live: "Delay {target}'s next write by 10s", Targets: "client", Fields: []string{"target", "kind", "by"}, Defaults: map[string]string{"kind": "write", "by": "10s"}},
			{Do: engine.FaultCrash, Label: "crash a lock server", Live: "Crash {target}", Targets: "node", Fields: []string{"target"}},
			{Do: engine.FaultRestart, Label: "restart a lock server", Live: "Restart {target}", Targets: "node", Fields: []string{"target"}},
			{Do: engine.FaultPartition, Label: "partition a lock server", Live: "Cut off {target} for 10s", Targets: "node", Fields: []string{"target", "for"}, Defaults: map[string]string{"for": "10s"}},
			{Do: engine.FaultClockJump, Label: "jump a clock", Live: "Jump {target}'s clock 10s ahead", Targets: "any", Fields: []string{"target", "by"}, Defaults: map[string]string{"by": "10s"}},
		},
		Backends: []BackendKind{
			{Name: engine.BackendRaft, Label: "Raft group", Nodes: []int{1, 3, 5}},
			{Name: engine.BackendSingle, Label: "single server", Nodes: []int{1}},
			{Name: engine.BackendAsyncReplica, Label: "primary + async replica", Nodes: []int{2}},
			{Name: engine.BackendRedlock, Label: "Redlock (independent servers)", Nodes: []int{3, 5}},
		},
		DelayKinds: []string{engine.MsgWrite, engine.MsgRenew, engine.MsgRelease, engine.MsgAcquire, engine.MsgRead, engine.MsgCheck, engine.MsgSend},
		Speeds:     []float64{1, 2, 5, 10, 50, 0},
	}
	return c
}
