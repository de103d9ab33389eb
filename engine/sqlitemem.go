package engine

import (
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Every live run holds one in-memory SQLite database, and SQLite keeps its
// memory outside the Go heap, where neither the collector nor the memory
// budget sees it. At SQLite's defaults an idle database with its table and
// statements holds about 100 KB resident; a class of 1,000 live runs then
// holds 100 MB that no Go figure shows. Two settings bring that to about
// 50 KB without changing a single result (BenchmarkIdleStoreMemory,
// docs/web-benchmarks.md):
//
//   - no lookaside (SQLITE_CONFIG_LOOKASIDE 0, 0): SQLite's per-connection
//     arena for small allocations, 1,200 bytes times 100 slots taken up
//     front by every connection. The statements' small allocations go to
//     the allocator instead.
//   - 1 KB pages (storePageSize) for the stores: a run's table holds one
//     row, and the page cache's first allocation is sized in pages.
//
// The lookaside setting is process-wide: it must be made before SQLite is
// first used (sqlite3_initialize, which the first open calls), so it is
// made here, when the package is initialized. It holds for every SQLite
// connection of the process, the classroom's database too, whose queries
// are few and small. If something opened SQLite earlier, the call fails
// and SQLite keeps its defaults: a run costs more memory, nothing else.
var sqliteLookasideOff = configureSQLite()

// storePageSize is the page size of a run's database, set before its
// table is created.
const storePageSize = 1024

func configureSQLite() bool {
	tls := libc.NewTLS()
	defer tls.Close()
	// Room for the two int arguments as C varargs.
	va := libc.Xmalloc(tls, 2*8)
	if va == 0 {
		return false
	}
	defer libc.Xfree(tls, va)
	rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_LOOKASIDE, libc.VaList(va, int32(0), int32(0)))
	return rc == sqlite3.SQLITE_OK
}
