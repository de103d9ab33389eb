package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestRaftDiskLoss: the grant of token 33 is stored by node-1 and node-2
// only. node-1 crashes and node-2 loses its disk, so the next leader is
// elected with node-2's vote from a log without the grant and hands token
// 33 to client-2 while client-1 holds it. Fencing cannot tell two holders
// of one token apart: the late write lands with fencing on or off, and
// the history is not linearizable. However late client-1 writes, the same.
func TestRaftDiskLoss(t *testing.T) {
	for _, fencing := range []bool{false, true} {
		for _, work := range []int64{6, 8, 9} {
			t.Run(fmt.Sprintf("fencing=%v/work=%ds", fencing, work), func(t *testing.T) {
				res := mustRun(t, mustPreset(t, "raft-disk-loss", fencing, "clients[client-1].steps[2].for", fmt.Sprintf("%ds", work)))
				if d := find(res, "node-2", engine.KindDiskLost); len(d) != 1 || d[0].T != 2000 {
					t.Fatalf("node-2 should lose its disk at 2 s: %v", d)
				}
				grantAt(t, res, "client-1", 33, 0)
				grantAt(t, res, "client-2", 33, 3000)
				lastWrite(t, res, "client-2", engine.KindWriteAccepted, 33, 4000)
				lastWrite(t, res, "client-1", engine.KindWriteAccepted, 33, work*1000)
				s := res.Summary
				if s.DuplicateTokens != 1 || s.DoubleGrants != 1 || s.LockSafe || s.Safe || s.StaleWritesAccepted != 1 || s.FinalValue != 42000 {
					t.Errorf("one token, two holders, fencing or not: %+v", s)
				}
				if res.History().Linearizable(0) {
					t.Errorf("two grants of one lease at once cannot be linearized")
				}
			})
		}
	}
}

// TestRaftCrashKeepsGrant: the same faults with a plain crash and restart
// of node-2 instead of a lost disk: node-2 keeps the grant, the next
// leader has it, and client-2 waits for the lock.
func TestRaftCrashKeepsGrant(t *testing.T) {
	sc := mustPreset(t, "raft-disk-loss", true)
	sc.Faults = append(sc.Faults[:2], engine.Fault{At: engine.Sec(2), Do: "crash", Target: "node-2"},
		engine.Fault{At: engine.Ms(2001), Do: "restart", Target: "node-2"})
	res := mustRun(t, sc)
	if g := find(res, "client-2", engine.KindGranted); len(g) != 1 || g[0].Token != 34 {
		t.Fatalf("client-2 should get token 34 once client-1 is done: %v", g)
	}
	if s := res.Summary; !s.Safe || !s.LockSafe || s.DuplicateTokens != 0 || s.DoubleGrants != 0 {
		t.Errorf("a node that keeps its disk keeps Raft safe: %+v", s)
	}
	if !res.History().Linearizable(0) {
		t.Errorf("history should be linearizable")
	}
}

// TestLoseDiskNeedsADisk: the fault is refused, by field, on a backend
// whose servers keep no log.
func TestLoseDiskNeedsADisk(t *testing.T) {
	sc := mustPreset(t, "raft-disk-loss", true)
	sc.Lock = engine.Lock{Backend: "single", Lease: sc.Lock.Lease}
	sc.Faults = []engine.Fault{{At: engine.Sec(2), Do: "lose_disk", Target: "node-1"}}
	_, err := engine.Prepare(sc)
	if err == nil || !strings.Contains(err.Error(), "faults[0].do") || !strings.Contains(err.Error(), "raft or zookeeper") {
		t.Fatalf("want a refusal naming faults[0].do and the backends that take it: %v", err)
	}
}
