package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestARefusalBlamesTheClockItWasJudgedBy: a refusal is judged when the
// node serves it, so its clock words name the skew of that moment, not
// of the moment the answer arrives. client-1's lease of token 33 truly
// runs out at 3.2s; its check reaches node-1 at 4.6s and the refusal
// ("the lease of token 33 ran out at 3.2s") is back at 4.8s. node-1's
// clock jumps 9s ahead, swept across the way there and back: a jump before
// the node served the check judged the refusal, and the refusal says so;
// one after it did not, and it is not blamed (before, a jump while the
// answer travelled read "by node-1's clock, 9s ahead of true time"). A
// clock 9s ahead from the start that jumps back after the node served
// the check is still named (before, it went unsaid).
func TestARefusalBlamesTheClockItWasJudgedBy(t *testing.T) {
	const served, arrived = 4600, 4800
	run := func(faults string) engine.Event {
		sc, err := engine.DecodeScenario([]byte(fmt.Sprintf(`{"title":"a refusal on its way back","seed":1,"until":"10s",
			"lock":{"backend":"single","lease":"3s","latency":"200ms"},
			"storage":{"key":"account-42","initial":0},
			"clients":[{"name":"client-1","on_refused":"stop","steps":[{"do":"acquire"},{"do":"work","for":"4s"},{"do":"check"}]}],
			"faults":[%s]}`, faults)))
		if err != nil {
			t.Fatal(err)
		}
		res := mustRun(t, sc)
		for _, e := range res.Events {
			if e.Kind == engine.KindCheckFailed {
				if e.T != arrived || !strings.HasPrefix(e.Reason, "the lease of token 33 ran out at") {
					t.Fatalf("%s: the check's refusal is %q at %s, want one that the lease ran out, at %s", faults, e.Reason, engine.FormatMS(e.T), engine.FormatMS(arrived))
				}
				return e
			}
		}
		t.Fatalf("%s: no check refused", faults)
		return engine.Event{}
	}
	const ahead = "by node-1's clock, 9s ahead of true time"
	for at := int64(served - 100); at <= arrived+100; at += 50 {
		e := run(fmt.Sprintf(`{"at":"%dms","do":"clock_jump","target":"node-1","by":"9s"}`, at))
		if blamed, want := strings.Contains(e.Reason, ahead), at <= served; blamed != want {
			t.Errorf("node-1's clock jumps 9s ahead at %s: the refusal reads %q (blames the jump: %v, want %v)", engine.FormatMS(at), e.Reason, blamed, want)
		}
		if at <= served {
			continue // a clock back on true time when the check arrives finds the lease running
		}
		back := run(fmt.Sprintf(`{"at":"0s","do":"clock_jump","target":"node-1","by":"9s"},{"at":"%dms","do":"clock_jump","target":"node-1","by":"-9s"}`, at))
		if !strings.Contains(back.Reason, ahead) {
			t.Errorf("node-1's clock, 9s ahead, jumps back at %s: the refusal reads %q, want it to say it was judged %s", engine.FormatMS(at), back.Reason, ahead)
		}
	}
}
