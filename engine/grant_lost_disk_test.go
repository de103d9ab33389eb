package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestALostDiskSaysItTookAGrant: on Raft and ZooKeeper, one follower (the
// lagger) is cut off from 0s to 3s, so client-1's grant at 0s is stored by
// node-1 and the other follower only; then the leader node-1 crashes and a
// follower loses its disk. When the disk lost is the other follower's,
// before the lagger got the grant back, the leader elected next has no
// copy of the grant while client-1's lease still runs: it says it forgot
// the grant (grant_forgotten, when it is elected), the summary counts it
// and the verdict says so. When the disk lost is the lagger's, or is lost
// after the lagger caught up, the next leader has the grant and nothing
// of it is said. Before, the grant vanished unnamed: client-2 was granted
// the lock while client-1 held it, and chaos left the history
// unexplained. Swept over which follower lags, which loses its disk, and
// when.
func TestALostDiskSaysItTookAGrant(t *testing.T) {
	lost, kept := 0, 0
	for _, backend := range []string{"raft", "zookeeper"} {
		for _, lagger := range []string{"node-2", "node-3"} {
			other := map[string]string{"node-2": "node-3", "node-3": "node-2"}[lagger]
			for _, loser := range []string{other, lagger} {
				for _, at := range []int64{1000, 2500, 4000} {
					src := fmt.Sprintf(`{"title":"a grant lost with a disk","seed":1,"fencing":true,"until":"40s",
						"lock":{"backend":%q,"nodes":3,"lease":"10s","election":"1s"},
						"storage":{"key":"account-42","initial":0},
						"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"8s"},{"do":"write","add":1},{"do":"release"}]},
						{"name":"client-2","start":"1500ms","retry_every":"1s","steps":[{"do":"acquire"},{"do":"read"},{"do":"write","add":1},{"do":"release"}]}],
						"faults":[{"at":"0s","do":"partition","side":[%q],"for":"3s"},
						{"at":"%dms","do":"crash","target":"node-1"},{"at":"%dms","do":"lose_disk","target":%q}]}`,
						backend, lagger, at, at, loser)
					sc, err := engine.DecodeScenario([]byte(src))
					if err != nil {
						t.Fatal(err)
					}
					res := mustRun(t, sc)
					name := fmt.Sprintf("%s, %s cut off until 3s, %s loses its disk at %dms", backend, lagger, loser, at)
					want := 0
					if loser == other && at < 3000 {
						want = 1 // no node left up has the grant
					}
					got := find(res, "", engine.KindGrantForgotten)
					v := engine.Verdict(res.Summary)
					if len(got) != want || res.Summary.ForgottenGrants != want || strings.Contains(v, "while its lease ran") != (want > 0) {
						t.Errorf("%s: %d grants forgotten, summary %d, want %d; verdict %q", name, len(got), res.Summary.ForgottenGrants, want, v)
						continue
					}
					if want == 0 {
						kept++
						continue
					}
					lost++
					granted := find(res, "client-1", engine.KindGranted)
					leaders := find(res, "", engine.KindLeader)
					if len(granted) == 0 || len(leaders) < 2 {
						t.Fatalf("%s: client-1 granted %v, leaders %v", name, granted, leaders)
					}
					leader := leaders[len(leaders)-1]
					says := fmt.Sprintf("forgot client-1's grant of token %d: a lost disk took a copy of this grant, committed at 0s, and %s was elected by nodes whose logs lack it", granted[0].Token, leader.Node)
					if w := engine.Describe(got[0]); got[0].Holder != "client-1" || got[0].Actor != leader.Node || got[0].T != leader.T || !strings.Contains(w, says) {
						t.Errorf("%s: %s at %dms %q, want %s to say at %dms %q", name, got[0].Actor, got[0].T, w, leader.Node, leader.T, says)
					}
					if !strings.Contains(v, "the lock service forgot 1 grant while its lease ran") {
						t.Errorf("%s: verdict %q", name, v)
					}
				}
			}
		}
	}
	if lost == 0 || kept == 0 {
		t.Fatalf("runs with a grant lost: %d, kept: %d: the sweep proves nothing", lost, kept)
	}
}
