package engine

import (
	"fmt"

	"github.com/hashicorp/raft"
)

// FaultLoseDisk makes a lock node lose its disk: it restarts (at once if
// it runs, or now if it is down) with an empty log and an empty stable
// store: no entries, no term, no record of its vote. Raft's safety
// assumes that what a node stored stays stored; a node that forgets the
// entries it acknowledged, or the vote it gave, can help elect a leader
// that lacks a committed grant, which then hands the same token out again.
const FaultLoseDisk = "lose_disk"

// KindDiskLost: a node lost its disk and starts again with nothing; actor
// and node: the node; message: what it forgot.
const KindDiskLost = "disk_lost"

// diskLoser is a lock service whose nodes keep a disk.
type diskLoser interface {
	// wipe empties a node's log, stable store and snapshots; the node is
	// down.
	wipe(n *simNode)
}

// validateLoseDisk checks that the backend's nodes keep a disk to lose.
func validateLoseDisk(sc *Scenario, p string) error {
	if b := backendEntry(sc.Lock.Backend); b == nil || !b.diskLoss {
		return fieldErr(p+".do", "lose_disk needs a backend whose nodes keep a log on disk (%s), not %s", orList(diskBackends()), sc.Lock.Backend)
	}
	return nil
}

// diskBackends names the backends whose nodes keep a log on disk.
func diskBackends() []string {
	var out []string
	for _, name := range Backends() {
		if b := backendEntry(name); b != nil && b.diskLoss {
			out = append(out, name)
		}
	}
	return out
}

// loseDisk stops the node if it runs, wipes its disk and starts it again.
func (w *world) loseDisk(n *simNode) {
	dl, ok := w.svc.(diskLoser)
	if !ok {
		w.ignored(Fault{Do: FaultLoseDisk, Target: n.name}, "this backend keeps no disk")
		return
	}
	w.emit(Event{Actor: n.name, Kind: KindDiskLost, Node: n.name,
		Message: "its disk lost everything: it starts again with an empty log, no term and no record of its vote"})
	if !n.down {
		w.svc.crash(n)
	}
	dl.wipe(n)
	w.svc.restart(n)
}

func (s *raftService) wipe(n *simNode) {
	nd := s.raftNode(n)
	nd.log = &raftLog{}
	nd.store = raft.NewInmemStore()
	nd.snaps = raft.NewInmemSnapshotStore()
	s.wiped = true
	if len(s.nodes) == 1 {
		// A group of one that lost its only copy can only start over: it
		// bootstraps itself again, as a new group with nothing in it.
		conf := raft.Configuration{Servers: []raft.Server{{ID: raft.ServerID(nd.name), Address: nd.trans.LocalAddr()}}}
		if err := raft.BootstrapCluster(raftConfig(nd.name, raftTimers), nd.log, nd.store, nd.snaps, nd.trans, conf); err != nil {
			s.fail(fmt.Errorf("raft bootstrap %s after its disk was lost: %w", nd.name, err))
		}
	} else if i := s.index(nd); s.logs.end != nil && i >= 0 {
		// Its log is empty: it votes for any candidate (every log is as
		// up to date as none), and it cannot be elected until a leader
		// reached it, knowing no group to campaign in (eligible).
		s.logs.end[i] = logEnd{}
		s.logs.terms[i] = 0
	}
	s.mu.Lock()
	delete(s.views, nd.name)
	s.mu.Unlock()
}
