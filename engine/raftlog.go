package engine

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// raftLog is the log store of every node of a group: the entries as
// raft.Log values in chunks of raftLogChunk. hashicorp/raft's InmemStore
// keeps a map of *raft.Log, one heap object and one map slot per entry,
// which the collector walks on every cycle; here an entry is a slot in a
// chunk, found by arithmetic, and appending never copies entries that are
// already stored (one growing slice did: at 100,000 entries a second, a
// long-lived group spent a tenth of its CPU copying its log between two
// compactions).
//
// Raft only ever appends right after the last entry, deletes a suffix (a
// conflict with a new leader) or a prefix (compaction after a snapshot),
// so the entries stay contiguous. IsMonotonic tells Raft so: after
// installing a snapshot it empties the log instead of leaving a gap. It is
// safe for concurrent use (Raft's replication goroutines read while the
// node appends).
type raftLog struct {
	mu    sync.RWMutex
	first uint64 // index of the oldest entry; meaningless while n is 0
	n     int    // entries held
	off   int    // slot of the oldest entry in chunks[0]
	// chunks hold the entries from slot off of chunks[0] on. Every chunk
	// but the last is full (raftLogChunk long); the first one grows by
	// append, so a run's small log costs no more than the entries it
	// holds. Slots outside the entries are cleared, so that dropped
	// entries' data can be collected.
	chunks [][]raft.Log
	// stored is closed (and forgotten) when entries are stored or
	// deleted: whoever waits for the log to reach an index waits on it
	// (stored) rather than polling.
	stored chan struct{}
}

// raftLogChunk is the number of entries in a full chunk (48 KB of
// raft.Log values).
const raftLogChunk = 512

var (
	_ raft.LogStore          = (*raftLog)(nil)
	_ raft.MonotonicLogStore = (*raftLog)(nil)
)

// FirstIndex returns the index of the oldest entry, 0 when the log is empty.
func (s *raftLog) FirstIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.n == 0 {
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

// lastEntry returns the index and term of the newest entry, 0 and 0 when
// the log is empty.
func (s *raftLog) lastEntry() (index, term uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.n == 0 {
		return 0, 0
	}
	index = s.lastLocked()
	return index, s.slot(index).Term
}

func (s *raftLog) lastLocked() uint64 {
	if s.n == 0 {
		return 0
	}
	return s.first + uint64(s.n) - 1
}

// slot is where the entry at index, which the log holds, is stored.
func (s *raftLog) slot(index uint64) *raft.Log {
	p := s.off + int(index-s.first)
	return &s.chunks[p/raftLogChunk][p%raftLogChunk]
}

// GetLog copies the entry at index into l (its Data is shared, as with
// InmemStore: nobody modifies an entry once it is stored).
func (s *raftLog) GetLog(index uint64, l *raft.Log) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.n == 0 || index < s.first || index > s.lastLocked() {
		return raft.ErrLogNotFound
	}
	*l = *s.slot(index)
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
	defer s.changedLocked()
	for _, l := range logs {
		switch {
		case l.Index == 0:
			return fmt.Errorf("raft log: an entry with index 0")
		case s.n == 0 || l.Index < s.first || l.Index > s.lastLocked()+1:
			s.reset()
		case l.Index <= s.lastLocked():
			s.truncate(int(l.Index - s.first))
		}
		s.push(l)
	}
	return nil
}

// push appends an entry after the last one, or as the first.
func (s *raftLog) push(l *raft.Log) {
	if s.n == 0 {
		s.first = l.Index
	}
	if p := s.off + s.n; p == len(s.chunks)*raftLogChunk {
		// The last chunk is full, or there is none. The first chunk
		// grows as entries come, so that a run's short log stays small;
		// a log that has filled one will fill the next.
		var next []raft.Log
		if len(s.chunks) > 0 {
			next = make([]raft.Log, 0, raftLogChunk)
		}
		s.chunks = append(s.chunks, next)
	}
	last := len(s.chunks) - 1
	s.chunks[last] = append(s.chunks[last], *l)
	s.n++
}

// DeleteRange deletes the entries from lo to hi, both included: a prefix
// (compaction) or a suffix (a conflict). Indexes outside the log are
// ignored; a range strictly inside it is refused, since it would leave a
// gap and Raft never asks for one.
func (s *raftLog) DeleteRange(lo, hi uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.changedLocked()
	if s.n == 0 {
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
		s.dropFront(int(hi - s.first + 1))
	case hi == last:
		s.truncate(int(lo - s.first))
	default:
		return fmt.Errorf("raft log: deleting %d to %d would leave a gap in %d to %d", lo, hi, s.first, last)
	}
	return nil
}

// changes returns a channel that is closed at the log's next change (an
// append or a deletion). Take it before reading the log, so that a change
// in between is not missed.
func (s *raftLog) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stored == nil {
		s.stored = make(chan struct{})
	}
	return s.stored
}

// changedLocked wakes whoever waits on changes.
func (s *raftLog) changedLocked() {
	if s.stored != nil {
		close(s.stored)
		s.stored = nil
	}
}

// IsMonotonic tells Raft that the log cannot hold gaps (see raftLog).
func (s *raftLog) IsMonotonic() bool { return true }

// dropFront drops the k oldest entries, 0 < k < n: the chunks they filled
// go, and their slots in the chunk that stays are cleared.
func (s *raftLog) dropFront(k int) {
	end := s.off + k // slot of the new oldest entry, counted from chunks[0]
	gone := end / raftLogChunk
	clear(s.chunks[:gone])
	from := 0
	if gone == 0 {
		from = s.off
	}
	clear(s.chunks[gone][from : end%raftLogChunk])
	s.chunks = s.chunks[gone:]
	s.off, s.first, s.n = end%raftLogChunk, s.first+uint64(k), s.n-k
}

// truncate keeps the m oldest entries, 0 <= m <= n, clearing the slots of
// the others so that their data can be collected.
func (s *raftLog) truncate(m int) {
	if m == 0 {
		s.reset()
		return
	}
	end := s.off + m // slot after the newest kept entry
	keep := (end - 1) / raftLogChunk
	clear(s.chunks[keep+1:])
	s.chunks = s.chunks[:keep+1]
	cut := end - keep*raftLogChunk
	clear(s.chunks[keep][cut:])
	s.chunks[keep] = s.chunks[keep][:cut]
	s.n = m
}

// reset empties the log and gives up its chunks.
func (s *raftLog) reset() {
	s.chunks, s.off, s.first, s.n = nil, 0, 0, 0
}
