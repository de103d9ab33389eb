package web_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestFoldHoldsAGrantWhoseAnswerDiedWithItsNode: wherever node-1's crash
// falls after it applied client-1's acquire and before the answer left
// (ambiguous-commit with the crash moved), the service holds the grant:
// from the answer_lost on, the lock panel shows client-1 holding token 33
// until its lease end, not a free lock until client-1 asks again.
func TestFoldHoldsAGrantWhoseAnswerDiedWithItsNode(t *testing.T) {
	p, err := engine.LoadPreset("ambiguous-commit")
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for at := int64(150); at <= 200; at += 10 {
		sc := p.Prepared().Scenario()
		sc.Faults[0].At = engine.Ms(at)
		pr, err := engine.Prepare(sc)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Execute(t.Context(), pr)
		if err != nil {
			t.Fatal(err)
		}
		s := web.NewState(sc)
		for _, e := range res.Events {
			s.Apply(e)
			if e.Kind != engine.KindAnswerLost || e.Message != "acquire" || e.Token == 0 {
				continue
			}
			held++
			if s.Lock.Holder != e.Client || s.Lock.Token != e.Token || s.Lock.LeaseUntil == 0 {
				t.Errorf("crash at %dms: after %s's answer_lost (%q) the lock panel shows %+v", at, e.Actor, e.Reason, s.Lock)
			}
		}
	}
	if held == 0 {
		t.Fatal("no crash time lost an applied acquire's answer: the sweep tests nothing")
	}
}
