package engine

import "sync"

// cmdArena cuts the buffers a group's commands are encoded in from shared
// blocks. The log keeps every command's buffer until compaction, and the
// collector marks each one it keeps on every cycle: a busy group's log
// holds a hundred thousand of them between two snapshots, one small heap
// object each when each has its own. From a block, a few hundred commands
// are one object. A buffer's capacity ends where the command does, so
// nothing can append into the next one; a block is collected once the log
// has dropped every command in it, and compaction drops them in order.
// It is safe for concurrent use (a LockGroup commits from many
// goroutines).
type cmdArena struct {
	mu   sync.Mutex
	free []byte // the unused end of the current block
	size int    // the next block's size
}

// Block sizes: a run's group commits a few dozen commands, so its first
// block is small; a busy group's blocks grow to cmdBlockMax.
const (
	cmdBlockMin = 256
	cmdBlockMax = 8 << 10
)

// encode encodes c in a buffer of its exact size, cut from the current
// block (EncodeCommand's own buffer for a command too long to share one).
func (a *cmdArena) encode(c Command) []byte {
	n := commandLen(c)
	if n > cmdBlockMin/4 {
		return EncodeCommand(c)
	}
	a.mu.Lock()
	if len(a.free) < n {
		a.size = min(max(2*a.size, cmdBlockMin), cmdBlockMax)
		a.free = make([]byte, a.size)
	}
	b := a.free[:0:n]
	a.free = a.free[n:]
	a.mu.Unlock()
	return appendCommand(b, c)
}
