package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// answerScenario is a single server whose clock jumps by by at at, and a
// holder that renews every 2s and checks every second: its checks and
// renewals are answered on that clock before and after the jump.
func answerScenario(t *testing.T, at, by int64) engine.Scenario {
	t.Helper()
	steps := `{"do":"acquire"}`
	for i := 0; i < 12; i++ {
		steps += `,{"do":"work","for":"1s"},{"do":"check"}`
	}
	src := fmt.Sprintf(`{"title":"answers on a jumped clock","seed":1,"fencing":true,"until":"30s",
		"lock":{"backend":"single","lease":"8s"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-1","renew_every":"2s","on_refused":"stop","steps":[%s]}],
		"faults":[{"at":"%dms","do":"clock_jump","target":"node-1","by":"%dms"}]}`, steps, at, by)
	sc, err := engine.DecodeScenario([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// saysTrueReading reports whether a check's words say that node's clock
// reads the lease end until at true time at: as a grant says it ("until
// 16s by node-1's clock; in true time it runs until 13s"), or, where the
// lease was granted to end at another time, as "until 10s by node-1's
// clock, which reads 10s at 13s in true time".
func saysTrueReading(words, node string, until, at int64) bool {
	u, a := engine.FormatMS(until), engine.FormatMS(at)
	return strings.Contains(words, fmt.Sprintf("until %s by %s's clock; in true time it runs until %s", u, node, a)) ||
		strings.Contains(words, fmt.Sprintf("until %s by %s's clock, which reads %s at %s in true time; in true time it ", u, node, u, a))
}

// TestAnswersSayWhoseClock: a check's "still holds token 33 until 22s"
// and a refusal's "the lease of token 33 ran out at 22s" are the answering
// node's clock readings. Once that clock has jumped off true time, the
// answer says whose clock it is and the true time, as a grant does; before
// the jump, and on a clock that reads true time, the words stay as they
// are. Swept over the jump's time and size.
func TestAnswersSayWhoseClock(t *testing.T) {
	var checked, refused int
	for at := int64(1500); at <= 9500; at += 2000 {
		for _, by := range []int64{-6000, -2000, 3000, 9000, 15000} {
			res := mustRun(t, answerScenario(t, at, by))
			for _, e := range res.Events {
				words := engine.Describe(e)
				skew := int64(0)
				if e.T >= at {
					skew = by
				}
				switch {
				case e.Kind == engine.KindCheckOK:
					if skew == 0 {
						if strings.Contains(words, "true time") {
							t.Errorf("jump %dms at %dms: at %dms a true clock's answer with a clock's words: %q", by, at, e.T, words)
						}
						continue
					}
					checked++
					if !saysTrueReading(words, "node-1", e.LeaseUntil, e.LeaseUntil-skew) {
						t.Errorf("jump %dms at %dms: at %dms %q, want it to say node-1's clock reads %s at %s in true time", by, at, e.T, words, engine.FormatMS(e.LeaseUntil), engine.FormatMS(e.LeaseUntil-skew))
					}
				case (e.Kind == engine.KindRenewRefused || e.Kind == engine.KindCheckFailed) && strings.Contains(e.Reason, "ran out at"):
					if skew == 0 {
						if strings.Contains(words, "true time") {
							t.Errorf("jump %dms at %dms: at %dms a true clock's refusal with a clock's words: %q", by, at, e.T, words)
						}
						continue
					}
					refused++
					off := fmt.Sprintf("%s ahead of true time", engine.FormatMS(skew))
					if skew < 0 {
						off = fmt.Sprintf("%s behind true time", engine.FormatMS(-skew))
					}
					if !strings.Contains(words, "by node-1's clock, "+off+"; in true time it ") {
						t.Errorf("jump %dms at %dms: at %dms %q says nothing of node-1's clock being %s", by, at, e.T, words, off)
					}
				}
			}
		}
	}
	if checked == 0 || refused == 0 {
		t.Fatalf("checks on a jumped clock: %d, refusals: %d: the sweep proves nothing", checked, refused)
	}
}

// TestAFollowerReadSaysWhoseClock: a Raft follower cut off with the
// holder answers its follower read from its own copy and by its own clock;
// once that clock has jumped, "the lease of token 33 ran out at 13s by
// node-3's clock" says how far off the clock is and the true end, and
// "still holds token 33 until 13s" says when that clock will read it, in
// true time. Swept over the jump's time and size.
func TestAFollowerReadSaysWhoseClock(t *testing.T) {
	var checked, refused int
	for _, at := range []int64{4500, 5500} {
		for _, by := range []int64{-5000, -1000, 2000, 9000, 20000} {
			src := fmt.Sprintf(`{"title":"follower read on a jumped clock","seed":1,"fencing":true,"until":"40s",
				"lock":{"backend":"raft","nodes":3,"lease":"10s"},
				"storage":{"key":"account-42","initial":1000},
				"clients":[{"name":"client-1","renew_every":"3s","steps":[{"do":"acquire"},{"do":"work","for":"6s"},{"do":"check","read":"follower"}]}],
				"faults":[{"at":"4s","do":"partition","side":["node-3","client-1"],"for":"30s"},{"at":"%dms","do":"clock_jump","target":"node-3","by":"%dms"}]}`, at, by)
			sc, err := engine.DecodeScenario([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, sc)
			for _, e := range res.Events {
				w := engine.Describe(e)
				switch e.Kind {
				case engine.KindCheckOK:
					checked++
					if !saysTrueReading(w, "node-3", e.LeaseUntil, e.LeaseUntil-by) {
						t.Errorf("jump %dms at %dms: %q, want it to say node-3's clock reads %s at %s in true time", by, at, w, engine.FormatMS(e.LeaseUntil), engine.FormatMS(e.LeaseUntil-by))
					}
				case engine.KindCheckFailed:
					refused++
					want := fmt.Sprintf("by node-3's clock, %s ahead of true time; in true time it was to last until 13s", engine.FormatMS(by))
					if !strings.Contains(w, want) {
						t.Errorf("jump %dms at %dms: %q, want it to say %q", by, at, w, want)
					}
				}
			}
		}
	}
	if checked == 0 || refused == 0 {
		t.Fatalf("checks passed: %d, refused: %d: the sweep proves nothing", checked, refused)
	}
}
