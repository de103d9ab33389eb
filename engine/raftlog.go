package engine

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// raftLog is the log store of every node of a group: the entries in one
// slice of raft.Log values, entries[i] holding index first+i.
// hashicorp/raft's InmemStore keeps a map of *raft.Log, one heap object
// and one map slot per entry, which the collector walks on every cycle and
// which a long benchmark group never frees (see docs/benchmarks.md, "After
// (3)"); a slice of values is a single object, indexed without hashing.
//
// Raft only ever appends right after the last entry, deletes a suffix (a
// conflict with a new leader) or a prefix (compaction after a snapshot),
// so the entries stay contiguous. IsMonotonic tells Raft so: after
// installing a snapshot it empties the log instead of leaving a gap. It is
// safe for concurrent use (Raft's replication goroutines read while the
// node appends).
type raftLog struct {
	mu      sync.RWMutex
	first   uint64 // index of entries[0]; meaningless while entries is empty
	entries []raft.Log
}

var (
	_ raft.LogStore          = (*raftLog)(nil)
	_ raft.MonotonicLogStore = (*raftLog)(nil)
)

// FirstIndex returns the index of the oldest entry, 0 when the log is empty.
func (s *raftLog) FirstIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.entries) == 0 {
		return 0, nil
	}
	return s.first, nil
}

// LastIndex returns the index of the newest entry, 0 when the log is empty.
func (s *raftLog) LastIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lastLocked(), nil
}

func (s *raftLog) lastLocked() uint64 {
	if len(s.entries) == 0 {
		return 0
	}
	return s.first + uint64(len(s.entries)) - 1
}

// GetLog copies the entry at index into l (its Data is shared, as with
// InmemStore: nobody modifies an entry once it is stored).
func (s *raftLog) GetLog(index uint64, l *raft.Log) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.entries) == 0 || index < s.first || index > s.lastLocked() {
		return raft.ErrLogNotFound
	}
	*l = s.entries[index-s.first]
	return nil
}

// StoreLog appends one entry.
func (s *raftLog) StoreLog(l *raft.Log) error {
	return s.StoreLogs([]*raft.Log{l})
}

// StoreLogs appends entries. An entry at an index already held replaces it
// and everything after it (Raft deletes a conflicting suffix first, so
// this is only a safeguard); an entry that would leave a gap, or that
// comes before the oldest one, starts the log anew at its index, since the
// entries before a gap are covered by a snapshot.
func (s *raftLog) StoreLogs(logs []*raft.Log) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range logs {
		switch {
		case l.Index == 0:
			return fmt.Errorf("raft log: an entry with index 0")
		case len(s.entries) == 0 || l.Index < s.first || l.Index > s.lastLocked()+1:
			s.reset()
			s.first = l.Index
		case l.Index <= s.lastLocked():
			s.truncate(int(l.Index - s.first))
		}
		s.entries = append(s.entries, *l)
	}
	return nil
}

// DeleteRange deletes the entries from lo to hi, both included: a prefix
// (compaction) or a suffix (a conflict). Indexes outside the log are
// ignored; a range strictly inside it is refused, since it would leave a
// gap and Raft never asks for one.
func (s *raftLog) DeleteRange(lo, hi uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) == 0 {
		return nil
	}
	last := s.lastLocked()
	lo, hi = max(lo, s.first), min(hi, last)
	switch {
	case lo > hi:
		return nil
	case lo == s.first && hi == last:
		s.reset()
	case lo == s.first:
		n := int(hi - s.first + 1)
		// Clear the dropped entries so that their data can be collected;
		// the array itself is given up the next time append grows it.
		clear(s.entries[:n])
		s.entries = s.entries[n:]
		s.first = hi + 1
	case hi == last:
		s.truncate(int(lo - s.first))
	default:
		return fmt.Errorf("raft log: deleting %d to %d would leave a gap in %d to %d", lo, hi, s.first, last)
	}
	return nil
}

// IsMonotonic tells Raft that the log cannot hold gaps (see raftLog).
func (s *raftLog) IsMonotonic() bool { return true }

// truncate keeps the first n entries, clearing the rest so that their data
// can be collected.
func (s *raftLog) truncate(n int) {
	clear(s.entries[n:])
	s.entries = s.entries[:n]
}

// reset empties the log and gives up its array.
func (s *raftLog) reset() {
	s.entries, s.first = nil, 0
}
