package engine

import "fmt"

// LockDriver drives a LockGroup the way the benchmarks load it (engine's
// own and the etcd comparison in engine/etcdbench): each client on a lock
// of its own takes it and gives it back, in turn, with increasing request
// ids. One goroutine per client may call Op at once; a client's calls must
// not overlap.
type LockDriver struct {
	g      *LockGroup
	locks  []string
	names  []string
	tokens []int64
	seqs   []uint64
}

// NewLockDriver prepares clients clients ("client-0" on "lock-0", ...).
func NewLockDriver(g *LockGroup, clients int) *LockDriver {
	d := &LockDriver{g: g, locks: make([]string, clients), names: make([]string, clients),
		tokens: make([]int64, clients), seqs: make([]uint64, clients)}
	for c := range clients {
		d.locks[c], d.names[c] = fmt.Sprint("lock-", c), fmt.Sprint("client-", c)
	}
	return d
}

// Op runs client c's next operation: an acquire of its lock, or the
// release of the lock it holds. An error says which operation failed.
func (d *LockDriver) Op(c int) error {
	d.seqs[c]++
	cmd := Command{Op: OpAcquire, Lock: d.locks[c], Client: d.names[c], Lease: 10000, ReqID: d.seqs[c]}
	if d.tokens[c] != 0 {
		cmd.Op, cmd.Token = OpRelease, d.tokens[c]
	}
	r, err := d.g.Do(cmd)
	if err != nil || !r.OK {
		return fmt.Errorf("engine %v: %+v %v", cmd.Op, r, err)
	}
	d.tokens[c] = 0
	if cmd.Op == OpAcquire {
		d.tokens[c] = r.Token
	}
	return nil
}
