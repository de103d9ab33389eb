package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestCapabilitiesAreWhatValidationAccepts: the catalog is the one list.
// Every backend takes exactly the node counts it lists, fencing exactly
// when it hands out tokens, and its own lock fields; every step, fault
// and delay kind it lists is accepted with its required fields, refused
// without one of them, and a kind it does not list is refused.
func TestCapabilitiesAreWhatValidationAccepts(t *testing.T) {
	caps := engine.Capabilities()
	base := func() engine.Scenario { return mustPreset(t, "paused-holder", false) }
	fieldOf := func(err error) string {
		var fe *engine.FieldError
		if errors.As(err, &fe) {
			return fe.Field
		}
		return fmt.Sprint(err)
	}
	for _, b := range caps.Backends {
		for n := 0; n <= caps.Limits.Nodes+1; n++ {
			sc := base()
			sc.Faults = nil
			sc.Lock = engine.Lock{Backend: b.Name, Nodes: n}
			_, err := engine.Prepare(sc)
			if want := slices.Contains(b.Nodes, n) || (n == 0 && b.DefaultNodes > 0); (err == nil) != want {
				t.Errorf("%s with %d nodes: %v, catalog says %v", b.Name, n, err, b.Nodes)
			}
		}
		sc := base()
		sc.Faults, sc.Fencing = nil, true
		sc.Lock = engine.Lock{Backend: b.Name}
		if _, err := engine.Prepare(sc); (err == nil) != b.Tokens {
			t.Errorf("%s with fencing: %v, catalog says tokens=%v", b.Name, err, b.Tokens)
		}
		for field, set := range map[string]func(l *engine.Lock){
			"persist_every":   func(l *engine.Lock) { l.PersistEvery = engine.Sec(1) },
			"replication_lag": func(l *engine.Lock) { l.ReplicationLag = engine.Sec(1) },
		} {
			sc := base()
			sc.Faults = nil
			sc.Lock = engine.Lock{Backend: b.Name}
			set(&sc.Lock)
			if _, err := engine.Prepare(sc); (err == nil) != slices.Contains(b.Fields, field) {
				t.Errorf("%s with %s: %v, catalog lists %v", b.Name, field, err, b.Fields)
			}
		}
	}
	// A value that satisfies each field type.
	valueFor := func(f *engine.Fault, fc engine.FieldCapability) {
		switch fc.Name {
		case "target":
			f.Target = "node-2"
			if f.Do == engine.FaultPause || f.Do == engine.FaultDelay {
				f.Target = "client-1"
			}
		case "side":
			f.Side = []string{"node-1", "client-1"}
		case "for":
			f.For = engine.Sec(1)
		case "by":
			f.By = engine.Sec(1)
		case "kind":
			f.Kind = caps.DelayKinds[0]
		case "rate":
			f.Rate = fc.Min
		}
	}
	for _, k := range caps.Faults {
		full := engine.Fault{At: engine.Sec(1), Do: k.Do}
		for _, fc := range k.Fields {
			if fc.Required || (fc.OneOf != "" && fc.Name == "side") {
				valueFor(&full, fc)
			}
		}
		if k.Do == engine.FaultRestart {
			full.At = engine.Sec(2)
		}
		sc := base()
		sc.Faults = []engine.Fault{full}
		if k.Do == engine.FaultRestart {
			sc.Faults = []engine.Fault{{At: engine.Sec(1), Do: engine.FaultCrash, Target: "node-2"}, full}
		}
		if _, err := engine.Prepare(sc); err != nil {
			t.Errorf("%s with its fields %+v: %v", k.Do, full, err)
		}
		for _, fc := range k.Fields {
			if !fc.Required {
				continue
			}
			without := full
			switch fc.Name {
			case "target":
				without.Target = ""
			case "for":
				without.For = engine.Duration{}
			case "by":
				without.By = engine.Duration{}
			case "kind":
				without.Kind = ""
			case "rate":
				without.Rate = 0
			}
			sc := base()
			sc.Faults = []engine.Fault{without}
			if _, err := engine.Prepare(sc); fieldOf(err) != "faults[0]."+fc.Name {
				t.Errorf("%s without %s: %v", k.Do, fc.Name, err)
			}
		}
	}
	for _, kind := range caps.DelayKinds {
		sc := base()
		sc.Faults = []engine.Fault{{At: engine.Sec(1), Do: engine.FaultDelay, Target: "client-1", Kind: kind, By: engine.Sec(1)}}
		if _, err := engine.Prepare(sc); err != nil {
			t.Errorf("delay of %s: %v", kind, err)
		}
	}
	for _, st := range caps.Steps {
		step := engine.Step{Do: st.Do}
		for _, fc := range st.Fields {
			if fc.Required {
				step.For = engine.Sec(1)
			}
		}
		if st.Do == engine.StepWrite {
			step.Set = ptr(int64(1))
		}
		sc := base()
		sc.Faults = nil
		sc.Clients[1].Steps = []engine.Step{step}
		if _, err := engine.Prepare(sc); err != nil {
			t.Errorf("step %s: %v", st.Do, err)
		}
	}
	sc := base()
	sc.Faults = []engine.Fault{{At: engine.Sec(1), Do: "flood", Target: "node-1"}}
	if _, err := engine.Prepare(sc); fieldOf(err) != "faults[0].do" {
		t.Errorf("a fault kind the catalog does not list: %v", err)
	}
	sc = base()
	sc.Storage.Table = "ledger"
	if _, err := engine.Prepare(sc); fieldOf(err) != "storage.table" || slices.Contains(caps.Tables, "ledger") {
		t.Errorf("a table the catalog does not list: %v", err)
	}
	// A copy is the caller's.
	caps.Backends[0].Name = "changed"
	if engine.Capabilities().Backends[0].Name == "changed" {
		t.Errorf("Capabilities hands out its own list")
	}
}

// TestClientOptionsAreWhatValidationAccepts: every client option the
// catalog lists is accepted with the settings it needs, and refused,
// naming it, without them.
func TestClientOptionsAreWhatValidationAccepts(t *testing.T) {
	values := map[string]string{"switch": "true", "duration": "1s"}
	for _, o := range engine.Capabilities().ClientOptions {
		v, ok := values[o.Type]
		if !ok {
			t.Errorf("%s: a type the test does not know, %q", o.Name, o.Type)
			continue
		}
		sets := []string{"clients[0]." + o.Name, v}
		for _, n := range o.Needs {
			sets = append(sets, "clients[0]."+n, values[map[string]string{"watch_lease": "switch", "renew_every": "duration"}[n]])
		}
		if _, err := engine.Prepare(mustPreset(t, "paused-holder", false, sets...)); err != nil {
			t.Errorf("%s with %v: %v", o.Name, o.Needs, err)
		}
		for _, n := range o.Needs {
			sc := mustPreset(t, "paused-holder", false, sets...)
			if n == "watch_lease" {
				sc.Clients[0].WatchLease = false
			} else {
				sc.Clients[0].RenewEvery = engine.Duration{}
			}
			_, err := engine.Prepare(sc)
			var fe *engine.FieldError
			if !errors.As(err, &fe) || fe.Field != "clients[0]."+o.Name {
				t.Errorf("%s without %s: %v", o.Name, n, err)
			}
		}
	}
}
