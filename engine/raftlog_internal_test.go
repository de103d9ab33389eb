package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/hashicorp/raft"
)

// entries returns logs for the indexes lo..hi in term, each carrying its
// index as data.
func entries(term, lo, hi uint64) []*raft.Log {
	var out []*raft.Log
	for i := lo; i <= hi; i++ {
		out = append(out, &raft.Log{Index: i, Term: term, Type: raft.LogCommand, Data: []byte(fmt.Sprint(i))})
	}
	return out
}

// logOp is one step on a store: store entries or delete a range.
type logOp struct {
	store  []*raft.Log
	delete [2]uint64
}

func TestRaftLogContract(t *testing.T) {
	tests := []struct {
		name        string
		ops         []logOp
		first, last uint64
		term        map[uint64]uint64 // index -> term expected; every index in first..last must be listed or defaults to 1
		deleteErr   bool
	}{
		{name: "empty", first: 0, last: 0},
		{name: "store", ops: []logOp{{store: entries(1, 1, 5)}}, first: 1, last: 5},
		{name: "store one by one", ops: []logOp{{store: entries(1, 1, 1)}, {store: entries(1, 2, 2)}, {store: entries(1, 3, 3)}}, first: 1, last: 3},
		{name: "compact a prefix", ops: []logOp{{store: entries(1, 1, 10)}, {delete: [2]uint64{1, 4}}}, first: 5, last: 10},
		{name: "compact from below the first", ops: []logOp{{store: entries(1, 3, 10)}, {delete: [2]uint64{1, 6}}}, first: 7, last: 10},
		{name: "clear a conflicting suffix", ops: []logOp{{store: entries(1, 1, 10)}, {delete: [2]uint64{7, 10}}}, first: 1, last: 6},
		{name: "suffix then new term", ops: []logOp{{store: entries(1, 1, 10)}, {delete: [2]uint64{7, 10}}, {store: entries(2, 7, 8)}},
			first: 1, last: 8, term: map[uint64]uint64{7: 2, 8: 2}},
		{name: "delete everything", ops: []logOp{{store: entries(1, 1, 10)}, {delete: [2]uint64{1, 10}}}, first: 0, last: 0},
		{name: "delete everything then store after a snapshot", ops: []logOp{{store: entries(1, 1, 10)}, {delete: [2]uint64{1, 10}}, {store: entries(3, 500, 502)}},
			first: 500, last: 502, term: map[uint64]uint64{500: 3, 501: 3, 502: 3}},
		{name: "delete outside the log", ops: []logOp{{store: entries(1, 5, 10)}, {delete: [2]uint64{20, 30}}, {delete: [2]uint64{1, 3}}}, first: 5, last: 10},
		{name: "overwrite from an index held", ops: []logOp{{store: entries(1, 1, 10)}, {store: entries(2, 4, 5)}},
			first: 1, last: 5, term: map[uint64]uint64{4: 2, 5: 2}},
		{name: "a gap starts anew", ops: []logOp{{store: entries(1, 1, 10)}, {store: entries(2, 20, 21)}},
			first: 20, last: 21, term: map[uint64]uint64{20: 2, 21: 2}},
		{name: "a hole in the middle is refused", ops: []logOp{{store: entries(1, 1, 10)}, {delete: [2]uint64{4, 6}}}, first: 1, last: 10, deleteErr: true},
		{name: "compact, append, compact", ops: []logOp{{store: entries(1, 1, 100)}, {delete: [2]uint64{1, 90}}, {store: entries(1, 101, 300)}, {delete: [2]uint64{91, 250}}},
			first: 251, last: 300},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &raftLog{}
			var deleteErr error
			for _, op := range tc.ops {
				if op.store != nil {
					if err := s.StoreLogs(op.store); err != nil {
						t.Fatalf("StoreLogs: %v", err)
					}
					continue
				}
				if err := s.DeleteRange(op.delete[0], op.delete[1]); err != nil {
					deleteErr = err
				}
			}
			if (deleteErr != nil) != tc.deleteErr {
				t.Fatalf("DeleteRange error %v, want an error: %v", deleteErr, tc.deleteErr)
			}
			first, _ := s.FirstIndex()
			last, _ := s.LastIndex()
			if first != tc.first || last != tc.last {
				t.Fatalf("first, last = %d, %d; want %d, %d", first, last, tc.first, tc.last)
			}
			for i := tc.first; i <= tc.last && i > 0; i++ {
				var l raft.Log
				if err := s.GetLog(i, &l); err != nil {
					t.Fatalf("GetLog(%d): %v", i, err)
				}
				want := tc.term[i]
				if want == 0 {
					want = 1
				}
				if l.Index != i || l.Term != want || string(l.Data) != fmt.Sprint(i) {
					t.Errorf("GetLog(%d) = index %d term %d data %q; want term %d", i, l.Index, l.Term, l.Data, want)
				}
			}
			for _, i := range []uint64{0, tc.first - 1, tc.last + 1, tc.last + 1000} {
				if i >= tc.first && i <= tc.last && i > 0 {
					continue
				}
				var l raft.Log
				if err := s.GetLog(i, &l); !errors.Is(err, raft.ErrLogNotFound) {
					t.Errorf("GetLog(%d) outside %d..%d: %v, want raft.ErrLogNotFound", i, tc.first, tc.last, err)
				}
			}
		})
	}
}

// TestRaftLogDropsCompactedEntries checks that compaction and a cut
// suffix let the data of the dropped entries go: no slot outside the
// entries still points at data.
func TestRaftLogDropsCompactedEntries(t *testing.T) {
	s := &raftLog{}
	if err := s.StoreLogs(entries(1, 1, 3*raftLogChunk)); err != nil {
		t.Fatal(err)
	}
	whole := s.chunks // the chunks as they were, before any is dropped
	if err := s.DeleteRange(1, raftLogChunk+60); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRange(2*raftLogChunk+90, 3*raftLogChunk); err != nil {
		t.Fatal(err)
	}
	for c, chunk := range whole {
		for i, l := range chunk {
			index := c*raftLogChunk + i + 1
			kept := index > raftLogChunk+60 && index < 2*raftLogChunk+90
			if (l.Data != nil) != kept {
				t.Fatalf("slot of index %d holds data %q; kept: %v", index, l.Data, kept)
			}
		}
	}
	if len(s.chunks) != 2 {
		t.Errorf("the log holds %d chunks for entries %d to %d, want 2", len(s.chunks), raftLogChunk+61, 2*raftLogChunk+89)
	}
}

// TestRaftLogMatchesAModel runs random appends, overwrites, gaps,
// compactions and cut suffixes, across chunk boundaries, on the log and on
// a map, and checks after every step that the two hold the same entries
// and that no slot outside the entries keeps data.
func TestRaftLogMatchesAModel(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 1))
		s := &raftLog{}
		model := map[uint64]uint64{} // index -> term
		var first, last uint64
		term := uint64(1)
		for step := range 250 {
			var what string
			switch k := rng.IntN(10); {
			case k < 5 || last == 0: // append, sometimes a lot, sometimes after a gap
				from := last + 1
				if rng.IntN(20) == 0 {
					from += uint64(1 + rng.IntN(1000))
				}
				to := from + uint64(rng.IntN(3*raftLogChunk/2))
				what = fmt.Sprintf("store %d..%d", from, to)
				if from != last+1 {
					clear(model)
					first = from
				}
				if err := s.StoreLogs(entries(term, from, to)); err != nil {
					t.Fatalf("seed %d step %d %s: %v", seed, step, what, err)
				}
				for i := from; i <= to; i++ {
					model[i] = term
				}
				if first == 0 {
					first = from
				}
				last = to
			case k < 6: // a new leader overwrites from an index held
				term++
				from := first + uint64(rng.IntN(int(last-first+1)))
				to := from + uint64(rng.IntN(50))
				what = fmt.Sprintf("overwrite %d..%d", from, to)
				if err := s.StoreLogs(entries(term, from, to)); err != nil {
					t.Fatalf("seed %d step %d %s: %v", seed, step, what, err)
				}
				for i := from; i <= max(to, last); i++ {
					delete(model, i)
				}
				for i := from; i <= to; i++ {
					model[i] = term
				}
				last = to
			case k < 9: // compaction
				hi := first + uint64(rng.IntN(int(last-first+1)))
				lo := first - uint64(rng.IntN(2)) // Raft may ask from below the first
				what = fmt.Sprintf("delete %d..%d", lo, hi)
				if err := s.DeleteRange(lo, hi); err != nil {
					t.Fatalf("seed %d step %d %s: %v", seed, step, what, err)
				}
				for i := first; i <= hi; i++ {
					delete(model, i)
				}
				first = hi + 1
			default: // a conflicting suffix
				lo := first + uint64(rng.IntN(int(last-first+1)))
				what = fmt.Sprintf("delete %d..%d", lo, last)
				if err := s.DeleteRange(lo, last+uint64(rng.IntN(2))); err != nil {
					t.Fatalf("seed %d step %d %s: %v", seed, step, what, err)
				}
				for i := lo; i <= last; i++ {
					delete(model, i)
				}
				last = lo - 1
			}
			if first > last {
				first, last = 0, 0
			}
			checkAgainstModel(t, s, model, first, last, fmt.Sprintf("seed %d step %d (%s)", seed, step, what))
		}
	}
}

func checkAgainstModel(t *testing.T, s *raftLog, model map[uint64]uint64, first, last uint64, at string) {
	t.Helper()
	gotFirst, _ := s.FirstIndex()
	gotLast, _ := s.LastIndex()
	if gotFirst != first || gotLast != last {
		t.Fatalf("%s: first, last = %d, %d; want %d, %d", at, gotFirst, gotLast, first, last)
	}
	if len(model) != int(last-first+1) && last != 0 {
		t.Fatalf("%s: the model holds %d entries for %d..%d", at, len(model), first, last)
	}
	for i, term := range model {
		var l raft.Log
		if err := s.GetLog(i, &l); err != nil || l.Index != i || l.Term != term || string(l.Data) != fmt.Sprint(i) {
			t.Fatalf("%s: GetLog(%d) = index %d term %d data %q, %v; want term %d", at, i, l.Index, l.Term, l.Data, err, term)
		}
	}
	for _, i := range []uint64{first - 1, last + 1} {
		var l raft.Log
		if err := s.GetLog(i, &l); i != 0 && !errors.Is(err, raft.ErrLogNotFound) {
			t.Fatalf("%s: GetLog(%d) outside %d..%d: %v", at, i, first, last, err)
		}
	}
	held := 0
	for _, chunk := range s.chunks {
		for _, l := range chunk[:cap(chunk)] {
			if l.Data != nil {
				held++
			}
		}
	}
	if held != len(model) {
		t.Fatalf("%s: %d slots hold data, for %d entries", at, held, len(model))
	}
	for c, chunk := range s.chunks[:max(0, len(s.chunks)-1)] {
		if len(chunk) != raftLogChunk {
			t.Fatalf("%s: chunk %d of %d holds %d slots, not a full chunk", at, c, len(s.chunks), len(chunk))
		}
	}
}

// TestRaftLogConcurrent reads while another goroutine appends and
// compacts (run it with -race).
func TestRaftLogConcurrent(t *testing.T) {
	s := &raftLog{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := uint64(1); i <= 2000; i += 10 {
			if err := s.StoreLogs(entries(1, i, i+9)); err != nil {
				t.Error(err)
				return
			}
			if i > 100 {
				if err := s.DeleteRange(1, i-100); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				first, _ := s.FirstIndex()
				last, _ := s.LastIndex()
				var l raft.Log
				if err := s.GetLog(last, &l); err == nil && l.Index != last {
					t.Errorf("GetLog(%d) returned index %d", last, l.Index)
				}
				if first > last {
					t.Errorf("first %d after last %d", first, last)
				}
			}
		}()
	}
	wg.Wait()
}

// TestRaftLogWakesWaiters: a wait for the log to grow ends when entries are
// stored or deleted, and not before, so catchUp waits on replication
// instead of polling.
func TestRaftLogWakesWaiters(t *testing.T) {
	var s raftLog
	stored := s.changes()
	select {
	case <-stored:
		t.Fatal("woken before anything changed")
	default:
	}
	if err := s.StoreLogs([]*raft.Log{{Index: 1, Term: 1}, {Index: 2, Term: 1}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stored:
	default:
		t.Fatal("storing entries woke nobody")
	}
	next := s.changes()
	if next == stored {
		t.Fatal("the next wait reuses a closed channel")
	}
	if err := s.DeleteRange(2, 2); err != nil {
		t.Fatal(err)
	}
	select {
	case <-next:
	default:
		t.Fatal("deleting entries woke nobody")
	}
}
