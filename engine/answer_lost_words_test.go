package engine_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestALostAnswerByAStoppedNodeSaysSo: an answer_lost event is told when
// the client gives up waiting, which may be after the node that applied
// the command stopped. With the leader's crash swept across the acquire
// of ambiguous-commit, every such event from a node already stopped says
// that it applied the command and then stopped (before, "node-1" seemed
// to act at 200 ms after stopping at 160 ms), and none from a running
// node says so.
func TestALostAnswerByAStoppedNodeSaysSo(t *testing.T) {
	told := 0
	for at := 100; at <= 200; at += 10 {
		sc := mustPreset(t, "ambiguous-commit", true)
		sc.Faults[0].At = engine.Ms(int64(at))
		res := mustRun(t, sc)
		stopped := map[string]int64{}
		for _, e := range res.Events {
			if e.Kind == engine.KindNodeCrashed {
				stopped[e.Actor] = e.T
			}
			if e.Kind != engine.KindAnswerLost {
				continue
			}
			when, down := stopped[e.Actor]
			says := strings.Contains(e.Reason, "then stopped before its answer went out")
			if down && when <= e.T && !says || !down && says {
				t.Errorf("crash at %dms: %s's answer_lost at %s (stopped: %v) reads %q", at, e.Actor, engine.FormatMS(e.T), down, e.Reason)
			}
			if says {
				told++
			}
		}
	}
	if told == 0 {
		t.Fatal("no crash time made a stopped node's answer_lost: the sweep tests nothing")
	}
}
