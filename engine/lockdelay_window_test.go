package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestLockDelayWindowIsTheServices: the lock_delay event says until when
// nobody gets the lock, and the service keeps to it: nobody is granted the
// lock before it, and the waiter who asks every second gets it within a
// second after it (or after the event, when the window closed before a
// node could tell it, which the event then says). Swept over each backend with a lock-delay, with the
// lease's end told on time, told late by a leader elected after it (a
// leader crash at several times inside the lease, with an election longer
// than what was left), and ended early by the server's clock jumping
// ahead at several times inside the lease.
func TestLockDelayWindowIsTheServices(t *testing.T) {
	type variant struct {
		name string
		sets []string
	}
	var variants []variant
	variants = append(variants, variant{"on time", nil})
	for _, at := range []int64{3000, 6000, 9000} {
		for _, elected := range []int64{13000, 17000} {
			variants = append(variants, variant{fmt.Sprintf("leader crash at %s, next at %s", engine.FormatMS(at), engine.FormatMS(elected)),
				[]string{"lock.election", fmt.Sprintf("%dms", elected-at), "faults[2]", fmt.Sprintf(`{"at":"%dms","do":"crash","target":"leader"}`, at)}})
		}
	}
	for _, at := range []int64{2000, 5000, 8000} {
		for _, by := range []int64{1000, 4000} {
			variants = append(variants, variant{fmt.Sprintf("clock jump at %s by %s", engine.FormatMS(at), engine.FormatMS(by)),
				[]string{"faults[2]", fmt.Sprintf(`{"at":"%dms","do":"clock_jump","target":"node-1","by":"%dms"}`, at, by)}})
		}
	}
	for _, backend := range []string{"raft", "single", "async-replica", "etcd"} {
		for _, v := range variants {
			nodes := map[string]string{"raft": "3", "single": "1", "async-replica": "2", "etcd": "3"}[backend]
			if backend == "single" && v.sets != nil && v.sets[0] == "lock.election" {
				continue // nothing takes a single server's place
			}
			t.Run(backend+"/"+v.name, func(t *testing.T) {
				sets := append([]string{"lock.backend", backend, "lock.nodes", nodes, "lock.lock_delay", "5s",
					"faults[0].by", "3s"}, v.sets...)
				res := mustRun(t, mustPreset(t, "chubby-lock-delay", false, sets...))
				ld := find(res, "", engine.KindLockDelay)
				if len(ld) != 1 {
					t.Fatalf("one lease ends without a release: want one lock_delay event, got %v", ld)
				}
				g := find(res, "client-2", engine.KindGranted)
				if len(g) != 1 {
					t.Fatalf("client-2 should be granted once: %v", g)
				}
				if past := ld[0].Until <= ld[0].T; past != strings.Contains(ld[0].Message, "which has passed") {
					t.Errorf("the lock_delay event at %s, until %s, says %q", engine.FormatMS(ld[0].T), engine.FormatMS(ld[0].Until), ld[0].Message)
				}
				if g[0].T < ld[0].Until || g[0].T >= max(ld[0].Until, ld[0].T)+1000 {
					t.Errorf("the lock_delay event at %s says nobody gets the lock until %s, but client-2 (asking every second) is granted at %s",
						engine.FormatMS(ld[0].T), engine.FormatMS(ld[0].Until), engine.FormatMS(g[0].T))
				}
			})
		}
	}
}
