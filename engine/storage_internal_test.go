package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// drainIdleStores closes the databases kept for later runs, so that the
// next run opens a new one.
func drainIdleStores(t *testing.T) {
	t.Helper()
	idleStores.mu.Lock()
	defer idleStores.mu.Unlock()
	for table, idle := range idleStores.byTable {
		for _, db := range idle {
			if err := db.closeConn(); err != nil {
				t.Errorf("closing an idle %s database: %v", table, err)
			}
		}
		delete(idleStores.byTable, table)
	}
}

func idleStoreCount(table string) int {
	idleStores.mu.Lock()
	defer idleStores.mu.Unlock()
	return len(idleStores.byTable[table])
}

// idleStore is the database the next run on table will be given, or nil.
func idleStore(table string) *storeDB {
	idleStores.mu.Lock()
	defer idleStores.mu.Unlock()
	idle := idleStores.byTable[table]
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
				drainIdleStores(t)
				fresh := runJSON(t, prep)
				if n := idleStoreCount(table); n != 1 {
					t.Fatalf("after a run, %d idle %s databases, want 1", n, table)
				}
				kept := idleStore(table)
				for i := range 2 {
					if got := runJSON(t, prep); got != fresh {
						t.Fatalf("run %d on a reused database differs from a new one:\n%s\n---\n%s", i, got, fresh)
					}
					if n, db := idleStoreCount(table), idleStore(table); n != 1 || db != kept {
						t.Fatalf("run %d did not run on the kept database and give it back (%d idle)", i, n)
					}
				}
				// A run stopped after its first write leaves its row
				// changed; the next run must not see it.
				stopAfterWrite(t, prep)
				if got := runJSON(t, prep); got != fresh {
					t.Fatalf("the run after a stopped one differs from a new one:\n%s\n---\n%s", got, fresh)
				}
				if idleStore(table) != kept {
					t.Fatal("the runs after a stopped one did not reuse its database")
				}
			})
		}
	}
}

func runJSON(t *testing.T, p *Prepared) string {
	t.Helper()
	res, err := Execute(context.Background(), p)
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
func stopAfterWrite(t *testing.T, p *Prepared) {
	t.Helper()
	var r *Run
	stop := make(chan struct{}, 1)
	r, err := Start(context.Background(), p, Options{Sink: func(e Event) {
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
// run was given; and the databases kept are bounded.
func TestClosedStoreRefusesCalls(t *testing.T) {
	drainIdleStores(t)
	t.Cleanup(func() { drainIdleStores(t) })
	st, err := openStore(TableRecords, "account-1", 40000)
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
	next, err := openStore(TableRecords, "account-2", 7)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := next.get(); err != nil || r != (row{Value: 7}) {
		t.Fatalf("reused database: %+v %v", r, err)
	}
	if _, rows, err := next.write(9, 0, false); err != nil || rows != 1 {
		t.Fatalf("write: %d %v", rows, err)
	}
	next.close()

	var open []*store
	for range maxIdleStores + 5 {
		s, err := openStore(TableSeats, "seat-1", 0)
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
	if n := idleStoreCount(TableSeats); n != maxIdleStores {
		t.Errorf("%d idle seats databases, want the bound %d", n, maxIdleStores)
	}
}
