package engine_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// historyOp is one operation of History's JSON form.
type historyOp struct {
	Client int   `json:"client"`
	Call   int64 `json:"call"`
	Return int64 `json:"return"`
	Input  struct {
		Op     string `json:"op"`
		Client string `json:"client"`
	} `json:"input"`
	Output struct {
		OK         bool  `json:"ok"`
		LeaseUntil int64 `json:"lease_until"`
		Now        int64 `json:"now"`
	} `json:"output"`
}

func historyOps(t *testing.T, h *engine.History) []historyOp {
	t.Helper()
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var ops []historyOp
	if err := json.Unmarshal(b, &ops); err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestRedlockHistoryIsRecordedAtTheClient: under Redlock every quorum
// call (acquire, renew, release) is one operation of its client, with its
// invoke before its return, and two clients taking turns make a
// linearizable history of one lock.
func TestRedlockHistoryIsRecordedAtTheClient(t *testing.T) {
	sc := mustPreset(t, "paused-holder", false, "lock.backend", "redlock", "lock.nodes", "5")
	sc.Faults = nil
	res := mustRun(t, sc)
	ops := historyOps(t, res.History())
	if len(ops) == 0 {
		t.Fatal("a Redlock run recorded no operation")
	}
	seen := map[string]int{}
	for _, o := range ops {
		if o.Call >= o.Return {
			t.Errorf("an operation returns after it is invoked: %+v", o)
		}
		if o.Output.OK {
			seen[o.Input.Client+" "+o.Input.Op]++
		}
	}
	for _, want := range []string{"client-1 acquire", "client-1 release", "client-2 acquire", "client-2 release"} {
		if seen[want] == 0 {
			t.Errorf("no successful %q in the history: %v", want, seen)
		}
	}
	if got := res.History().Check(5 * time.Second); got != engine.LinearizableOK {
		t.Errorf("two clients taking turns: %s, want ok", got)
	}
}

// TestRedlockDoubleGrantIsNotLinearizable sweeps the size of node-3's
// clock jump in redlock-clock-jump: client-2 gathers a majority while
// client-1's validity still runs exactly when the jump takes node-3 past
// client-1's lease, and exactly then the history, checked as one lock, is
// not linearizable.
func TestRedlockDoubleGrantIsNotLinearizable(t *testing.T) {
	doubled, single := 0, 0
	for by := int64(1000); by <= 12000; by += 1000 {
		sc := mustPreset(t, "redlock-clock-jump", false, "faults[2].by", fmt.Sprintf("%dms", by))
		res := mustRun(t, sc)
		got := res.History().Check(5 * time.Second)
		if res.History().Len() == 0 {
			t.Fatalf("by %d ms: empty history", by)
		}
		switch double := res.Summary.DoubleGrants > 0; {
		case double && got != engine.LinearizableIllegal:
			t.Errorf("jump %s: two clients held a majority at once, but the history is %s", engine.FormatMS(by), got)
		case !double && got != engine.LinearizableOK:
			t.Errorf("jump %s: one holder at a time, but the history is %s", engine.FormatMS(by), got)
		case double:
			doubled++
		default:
			single++
		}
	}
	if doubled == 0 || single == 0 {
		t.Errorf("the sweep should cross the lease's end: %d double grants, %d clean runs", doubled, single)
	}
}
