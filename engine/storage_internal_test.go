package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// storesPool is a pool that boots no Raft group and keeps databases, for
// the runs of one test.
func storesPool(t *testing.T) *RaftPool {
	t.Helper()
	p, err := NewRaftPool(RaftPoolSize{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing the pool: %v", err)
		}
	})
	return p
}

// peek is the database the next run on table will be given, or nil.
func (p *storePool) peek(table string) *storeDB {
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := p.byTable[table]
	if len(idle) == 0 {
		return nil
	}
	return idle[len(idle)-1]
}

// TestReusedStoresGiveTheSameTimeline runs every preset, fenced and not,
// on a new database and then twice on the database a finished run left
// behind (emptied and kept), and requires the same bytes: a reused
// database is indistinguishable from a new one. A run stopped halfway (its
// row written to) leaves a database that the next run reuses just the
// same.
func TestReusedStoresGiveTheSameTimeline(t *testing.T) {
	for _, name := range PresetNames() {
		for _, fencing := range []bool{false, true} {
			if fencing && name == "redlock-clock-jump" {
				continue // Redlock has no token to fence with
			}
			t.Run(fmt.Sprintf("%s/fencing=%v", name, fencing), func(t *testing.T) {
				p, err := LoadPreset(name)
				if err != nil {
					t.Fatal(err)
				}
				sc := p.Prepared().Scenario()
				sc.Fencing = fencing
				prep, err := Prepare(sc)
				if err != nil {
					t.Fatal(err)
				}
				table := prep.Scenario().Storage.Table
				pool := storesPool(t)
				stores := pool.stores
				fresh := runJSON(t, prep, pool)
				if n := stores.idle(table); n != 1 {
					t.Fatalf("after a run, %d idle %s databases, want 1", n, table)
				}
				kept := stores.peek(table)
				for i := range 2 {
					if got := runJSON(t, prep, pool); got != fresh {
						t.Fatalf("run %d on a reused database differs from a new one:\n%s\n---\n%s", i, got, fresh)
					}
					if n, db := stores.idle(table), stores.peek(table); n != 1 || db != kept {
						t.Fatalf("run %d did not run on the kept database and give it back (%d idle)", i, n)
					}
				}
				// A run stopped after its first write leaves its row
				// changed; the next run must not see it.
				stopAfterWrite(t, prep, pool)
				if got := runJSON(t, prep, pool); got != fresh {
					t.Fatalf("the run after a stopped one differs from a new one:\n%s\n---\n%s", got, fresh)
				}
				if stores.peek(table) != kept {
					t.Fatal("the runs after a stopped one did not reuse its database")
				}
			})
		}
	}
}

func runJSON(t *testing.T, p *Prepared, pool *RaftPool) string {
	t.Helper()
	res, err := pool.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stopAfterWrite runs p until the storage accepts a write or a claim (or
// to its end) and stops it there.
func stopAfterWrite(t *testing.T, p *Prepared, pool *RaftPool) {
	t.Helper()
	var r *Run
	stop := make(chan struct{}, 1)
	r, err := Start(context.Background(), p, Options{Pool: pool, Sink: func(e Event) {
		if e.Actor == ActorStorage && e.Rows != nil && *e.Rows == 1 {
			select {
			case stop <- struct{}{}:
			default:
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-stop:
		r.Stop()
	case <-r.Done():
	}
	if _, err := r.Wait(); err != nil && !errors.Is(err, ErrStopped) {
		t.Fatal(err)
	}
}

// TestClosedStoreRefusesCalls: once its run closed it, a store's handle
// refuses every call, so that nothing late can touch the database a later
// run was given; the databases kept are bounded by the pool's size, a run
// without a pool keeps none, and closing the pool closes those it kept.
func TestClosedStoreRefusesCalls(t *testing.T) {
	stores := newStorePool(4)
	st, err := openStore(stores, TableRecords, "account-1", 40000)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := st.get(); err != nil || r != (row{Value: 40000}) {
		t.Fatalf("get: %+v %v", r, err)
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.get(); !errors.Is(err, errStoreClosed) {
		t.Errorf("get after close: %v", err)
	}
	if _, _, err := st.write(1, 1, true); !errors.Is(err, errStoreClosed) {
		t.Errorf("write after close: %v", err)
	}
	if err := st.close(); err != nil {
		t.Errorf("a second close: %v", err)
	}
	// The kept database serves the next run with its own row.
	kept := stores.peek(TableRecords)
	next, err := openStore(stores, TableRecords, "account-2", 7)
	if err != nil {
		t.Fatal(err)
	}
	if next.db != kept {
		t.Error("the next run did not get the kept database")
	}
	if r, err := next.get(); err != nil || r != (row{Value: 7}) {
		t.Fatalf("reused database: %+v %v", r, err)
	}
	if _, rows, err := next.write(9, 0, false); err != nil || rows != 1 {
		t.Fatalf("write: %d %v", rows, err)
	}
	next.close()

	var open []*store
	for range stores.max + 5 {
		s, err := openStore(stores, TableSeats, "seat-1", 0)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, s)
	}
	for _, s := range open {
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := stores.idle(TableSeats); n != stores.max {
		t.Errorf("%d idle seats databases, want the bound %d", n, stores.max)
	}

	// Without a pool, nothing is kept.
	alone, err := openStore(nil, TableRecords, "account-3", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := alone.close(); err != nil {
		t.Fatal(err)
	}
	// Closing the pool closes what it kept, and keeps nothing after.
	late, err := openStore(stores, TableRecords, "account-4", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := stores.close(); err != nil {
		t.Fatal(err)
	}
	if n := stores.idle(TableSeats) + stores.idle(TableRecords); n != 0 {
		t.Errorf("%d databases kept after the pool closed", n)
	}
	if err := late.close(); err != nil {
		t.Fatal(err)
	}
	if n := stores.idle(TableRecords); n != 0 {
		t.Errorf("a run that ended after the pool closed left %d databases kept", n)
	}
}

// TestRaftPoolSizesAndClosesItsStores: a pool keeps as many databases per
// table as it keeps groups, and its Close closes them.
func TestRaftPoolSizesAndClosesItsStores(t *testing.T) {
	p, err := NewRaftPool(RaftPoolSize{One: 1, Three: 2, Five: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.stores.max != 4 {
		t.Errorf("the pool keeps %d databases per table, want 4 (its groups)", p.stores.max)
	}
	st, err := openStore(p.storePool(), TableRecords, "k", 0)
	if err != nil {
		t.Fatal(err)
	}
	st.close()
	if p.stores.idle(TableRecords) != 1 {
		t.Fatal("the pool kept no database")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n := p.stores.idle(TableRecords); n != 0 {
		t.Errorf("%d databases kept after Close", n)
	}
	if (*RaftPool)(nil).storePool() != nil {
		t.Error("a nil pool has a store pool")
	}
}
