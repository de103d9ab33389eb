package web

import (
	"runtime"
	"testing"
)

// TestLiveRunsAreSizedFromMemoryAndCores: without --max-live-runs the
// live places are what the memory budget holds (LiveRunBytes each) and what the
// cores pace (LiveRunsPerCore each), whichever is fewer, within bounds;
// the websockets follow them with a second tab for a quarter.
func TestLiveRunsAreSizedFromMemoryAndCores(t *testing.T) {
	for _, tc := range []struct {
		budget int64
		cores  int
		want   int
	}{
		{1 << 30, 2, 1000}, // the class of 1,000 on two cores
		{1 << 30, 2, min(1<<30/LiveRunBytes, 2*LiveRunsPerCore)},
		{1 << 30, 1, min(1<<30/LiveRunBytes, LiveRunsPerCore)},
		{256 << 20, 8, 256 << 20 / LiveRunBytes},
		{64 << 20, 1, 64 << 20 / LiveRunBytes},
		{16 << 20, 4, MinLiveRuns},
		{1 << 40, 64, 10000},
	} {
		if got := LiveRunsFor(tc.budget, tc.cores); got != tc.want {
			t.Errorf("LiveRunsFor(%d MiB, %d cores) = %d, want %d", tc.budget>>20, tc.cores, got, tc.want)
		}
	}
	cfg := Config{MemoryBudget: 512 << 20}.withDefaults()
	want := min(512<<20/LiveRunBytes, runtime.GOMAXPROCS(0)*LiveRunsPerCore)
	if cfg.MaxLiveRuns != want || cfg.MaxConnections != max(DefaultMaxConnections, want+want/4) {
		t.Errorf("a 512 MiB budget on %d cores: %d live runs, %d connections; want %d and %d",
			runtime.GOMAXPROCS(0), cfg.MaxLiveRuns, cfg.MaxConnections, want, max(DefaultMaxConnections, want+want/4))
	}
	if cfg := (Config{MaxLiveRuns: 7}).withDefaults(); cfg.MaxLiveRuns != 7 || cfg.MaxConnections != DefaultMaxConnections {
		t.Errorf("given 7 live runs: %d live runs, %d connections", cfg.MaxLiveRuns, cfg.MaxConnections)
	}
}
