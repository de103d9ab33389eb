package engine

import (
	"context"
	"database/sql/driver"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"modernc.org/sqlite"
)

// TestStoresTakeLittleSQLiteMemory checks the settings that keep a run's
// database small outside the Go heap: SQLite's lookaside arena is off for
// the process (set before SQLite was first used) and a store's pages are
// 1 KB. Both are invisible to a run's results (the golden timelines pin
// those); this test fails if the package stops making them, for instance
// because something opened SQLite before the engine was initialized.
func TestStoresTakeLittleSQLiteMemory(t *testing.T) {
	if !sqliteLookasideOff {
		t.Fatal("SQLITE_CONFIG_LOOKASIDE was refused: SQLite was used before the engine package was initialized")
	}
	st, err := openStore(nil, TableRecords, "k", 7)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	db := st.db
	if _, err := db.exec(db.fenced, int64(8), int64(1), "k", int64(1)); err != nil {
		t.Fatal(err)
	}
	if r, err := db.readRow("k"); err != nil || r.Value != 8 || r.Fence != 1 {
		t.Fatalf("the fenced write: row %+v, %v; want value 8, fence 1", r, err)
	}
	status, ok := db.conn.(interface {
		Status(op sqlite.DBStatusOp, reset bool) (current, high int, err error)
	})
	if !ok {
		t.Fatalf("the SQLite driver's connection (%T) does not report its status", db.conn)
	}
	if cur, high, err := status.Status(sqlite.DBStatusLookasideUsed, false); err != nil || cur != 0 || high != 0 {
		t.Errorf("lookaside slots in use: %d (high %d), %v; want none: the arena is off", cur, high, err)
	}
	if got := pragmaInt(t, db.conn, "PRAGMA page_size"); got != storePageSize {
		t.Errorf("page size %d, want %d", got, storePageSize)
	}
}

// pragmaInt reads a pragma's one integer.
func pragmaInt(t *testing.T, conn driver.Conn, pragma string) int64 {
	t.Helper()
	rows, err := conn.(driver.QueryerContext).QueryContext(context.Background(), pragma, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	n, _ := vals[0].(int64)
	return n
}

// BenchmarkIdleStoreMemory opens many run databases, as many live runs
// hold at once, and reports what one costs: rss-KB-per-store is the
// resident memory it adds (SQLite's own memory is outside the Go heap),
// heap-KB-per-store the Go heap's share. Both resident figures are read
// after debug.FreeOSMemory, so that memory an earlier benchmark of the
// same process left behind is handed back before, not during, the count.
//
// Rerun: go test ./engine -run '^$' -bench IdleStoreMemory -benchtime 1x
func BenchmarkIdleStoreMemory(b *testing.B) {
	const n = 500
	for b.Loop() {
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss0, heap0 := residentBytes(), ms.HeapInuse
		stores := make([]*store, n)
		for i := range stores {
			st, err := openStore(nil, TableRecords, "k", 7)
			if err != nil {
				b.Fatal(err)
			}
			stores[i] = st
		}
		debug.FreeOSMemory()
		runtime.ReadMemStats(&ms)
		rss, heap := residentBytes()-rss0, int64(ms.HeapInuse)-int64(heap0)
		for _, st := range stores {
			st.close()
		}
		b.ReportMetric(float64(rss)/1024/n, "rss-KB-per-store")
		b.ReportMetric(float64(heap)/1024/n, "heap-KB-per-store")
	}
	b.ReportMetric(0, "ns/op")
}

// residentBytes is this process's resident memory now (Linux VmRSS), 0
// where /proc does not say.
func residentBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
