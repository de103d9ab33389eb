package web_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/web"
)

// BenchmarkLiveSessions opens many websocket sessions at once, each running
// paused-holder (fencing off) on its own three-node Raft group, paced at
// benchSpeed simulated seconds per wall second, and reports:
//
//   - lag-p50-ms, lag-p99-ms: how late events arrive against the pace. A
//     session's baseline is its most punctual event, so the figure is the
//     delay added by a busy server, not by the Raft bootstrap.
//   - first-event-p50-ms, first-event-p99-ms: from "start" to the first
//     event (bootstrap included).
//   - cpu-%-per-session: process CPU (server and test clients) over the
//     wall time of the sessions, per session, in % of one core.
//   - heap-KB-per-session: peak heap in use above the idle server, per session.
//   - gc-cycles: the collections while the sessions ran.
//   - peak-RSS-MB: the process's high-water resident memory (Linux VmHWM)
//     since it started, the test clients included: what the server's
//     memory comes to at n sessions, and a little more.
//
// The runtime is set as the serve command sets it (web.ApplyMemoryBudget:
// a 1 GiB soft limit, GOGC=400); GOGC=100 in the environment keeps the
// collector's default, as this benchmark ran before.
//
// Rerun: go test ./web -run '^$' -bench LiveSessions -benchtime 1x
// Other counts (CI runs the default 50, 100 and 200):
// PLAYGROUND_BENCH_SESSIONS=300,400,500 go test ./web -run '^$' -bench LiveSessions -benchtime 1x
// Starts spread over a second instead of all in one instant (a second
// measure, reported as sessions=N/spread=1s):
// PLAYGROUND_BENCH_SPREAD=1s PLAYGROUND_BENCH_SESSIONS=500 go test ./web -run '^$' -bench LiveSessions -benchtime 1x
// Each session running several runs one after the other, as a class that
// keeps going (reported as sessions=N/runs=K; lag is per run, the first
// event is the first run's):
// PLAYGROUND_BENCH_RUNS=5 PLAYGROUND_BENCH_SESSIONS=1000 go test ./web -run '^$' -bench LiveSessions -benchtime 1x
func BenchmarkLiveSessions(b *testing.B) {
	counts := []int{50, 100, 200}
	if env := os.Getenv("PLAYGROUND_BENCH_SESSIONS"); env != "" {
		counts = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 5000 {
				b.Fatalf("PLAYGROUND_BENCH_SESSIONS: %q is not a count between 1 and 5000", f)
			}
			counts = append(counts, n)
		}
	}
	var spread time.Duration
	if env := os.Getenv("PLAYGROUND_BENCH_SPREAD"); env != "" {
		d, err := time.ParseDuration(env)
		if err != nil || d < 0 || d > time.Minute {
			b.Fatalf("PLAYGROUND_BENCH_SPREAD: %q is not a duration between 0 and 1m", env)
		}
		spread = d
	}
	runs := 1
	if env := os.Getenv("PLAYGROUND_BENCH_RUNS"); env != "" {
		k, err := strconv.Atoi(env)
		if err != nil || k < 1 || k > 20 {
			b.Fatalf("PLAYGROUND_BENCH_RUNS: %q is not a count between 1 and 20", env)
		}
		runs = k
	}
	for _, n := range counts {
		name := fmt.Sprintf("sessions=%d", n)
		if spread > 0 {
			name += "/spread=" + spread.String()
		}
		if runs > 1 {
			name += fmt.Sprintf("/runs=%d", runs)
		}
		b.Run(name, func(b *testing.B) { benchSessions(b, n, spread, runs) })
	}
}

const benchSpeed = 10

// sessionStats is what one browser saw of its run.
type sessionStats struct {
	Lags       []float64 `json:"lags"`        // ms
	FirstEvent float64   `json:"first_event"` // ms
	Err        string    `json:"err,omitempty"`
}

// benchSessions runs n sessions. With spread 0 every session sends its
// start in the same instant (the benchmark's measure); otherwise the
// starts are spread evenly over spread, as a class's browsers press Run
// within a second or so (a second measure, named apart). Each session
// runs runs runs, one after the other.
func benchSessions(b *testing.B, n int, spread time.Duration, runs int) {
	// n browsers behind one address (a class behind a school's NAT): each
	// session has the visitor cookie the server issued it (a made-up one
	// would count as the address's one anonymous flow), and the address may
	// use every slot, socket and session. Raft groups are booted ahead,
	// with their databases kept for the next runs, as the serve command
	// does by default (without, every run opened a database of its own: a
	// seventh of the server's CPU went to SQLite preparing its statements).
	ts, _ := startServer(b, web.Config{WarmRaftGroups: true, MaxLiveRuns: 2 * n, MaxConnections: 2 * n, AddressShare: 1,
		ConnectionsPerAddress: 2 * n, SessionsPerAddress: 2 * n})
	// The Go runtime as the serve command sets it for its default memory
	// budget (GOGC=100 in the environment measures the collector's default).
	defer web.ApplyMemoryBudget(web.DefaultMemoryBudget, os.Getenv)()
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/run"
	var lags, firsts []float64
	var cpu, clientCPU, clientRSS, heap, heapMB, stackMB, gcs float64
	job := clientJob{URL: url, Scenario: preset(b, "paused-holder", false), Spread: spread, Runs: runs, Cookies: make([]string, n)}
	for i := range job.Cookies {
		job.Cookies[i] = visitorCookie(b, ts.URL)
	}
	for b.Loop() {
		clients := startClients(b, job)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		baseHeap, gc0 := ms.HeapInuse, ms.NumGC
		peak, peakStack := baseHeap, ms.StackInuse
		stopSampling := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stopSampling:
					return
				case <-tick.C:
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
					peakStack = max(peakStack, ms.StackInuse)
				}
			}
		}()
		cpu0, wall0 := cpuTime(), time.Now()
		rep, err := clients.run()
		wall := time.Since(wall0)
		cpuUsed := cpuTime() - cpu0
		close(stopSampling)
		<-sampled
		runtime.ReadMemStats(&ms)
		gcs = float64(ms.NumGC - gc0)
		if err != nil {
			b.Fatal(err)
		}
		for i, s := range rep.Sessions {
			if s.Err != "" {
				b.Fatalf("session %d: %s", i, s.Err)
			}
			lags = append(lags, s.Lags...)
			firsts = append(firsts, s.FirstEvent)
		}
		cpu = 100 * cpuUsed.Seconds() / wall.Seconds() / float64(n)
		clientCPU = 100 * rep.CPU.Seconds() / wall.Seconds() / float64(n)
		clientRSS = float64(rep.PeakRSS) / (1 << 20)
		heap = float64(peak-baseHeap) / 1024 / float64(n)
		heapMB, stackMB = float64(peak)/(1<<20), float64(peakStack)/(1<<20)
	}
	b.ReportMetric(percentile(lags, 50), "lag-p50-ms")
	b.ReportMetric(percentile(lags, 99), "lag-p99-ms")
	b.ReportMetric(percentile(firsts, 50), "first-event-p50-ms")
	b.ReportMetric(percentile(firsts, 99), "first-event-p99-ms")
	b.ReportMetric(cpu, "cpu-%-per-session")
	b.ReportMetric(clientCPU, "client-cpu-%-per-session")
	b.ReportMetric(clientRSS, "client-RSS-MB")
	b.ReportMetric(heap, "heap-KB-per-session")
	b.ReportMetric(heapMB, "peak-heap-MB")
	b.ReportMetric(stackMB, "peak-stack-MB")
	b.ReportMetric(gcs, "gc-cycles")
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
	}
	b.ReportMetric(0, "ns/op")
}

// runSession starts runs paced runs one after the other, each once the
// last one's summary came, and times their events. It reads only what it
// times (a browser's decoding is not the server's cost).
func runSession(c *websocket.Conn, scenario []byte, runs int) sessionStats {
	var st sessionStats
	c.SetReadDeadline(time.Now().Add(time.Duration(runs) * 2 * time.Minute))
	for k := range max(runs, 1) {
		lags, first, err := timeRun(c, scenario)
		if err != nil {
			return sessionStats{Err: fmt.Sprintf("run %d: %v", k+1, err)}
		}
		if k == 0 {
			st.FirstEvent = first
		}
		st.Lags = append(st.Lags, lags...)
	}
	return st
}

// timeRun starts one paced run and times its events until the summary:
// how late each came (ms) and when the first did.
func timeRun(c *websocket.Conn, scenario []byte) (lags []float64, first float64, err error) {
	start := time.Now()
	if err := c.WriteJSON(map[string]any{"type": "start", "scenario": rawJSON(scenario), "speed": benchSpeed}); err != nil {
		return nil, 0, err
	}
	type arrival struct {
		at  time.Duration
		sim int64
	}
	var got []arrival
	for {
		var m struct {
			Type    string
			Message string
			Event   *struct{ T int64 }
		}
		if err := c.ReadJSON(&m); err != nil {
			return nil, 0, err
		}
		if m.Type == web.MsgError {
			return nil, 0, errors.New("server: " + m.Message)
		}
		if m.Type == web.MsgEvent && m.Event != nil {
			got = append(got, arrival{time.Since(start), m.Event.T})
		}
		if m.Type == web.MsgSummary {
			break
		}
	}
	if len(got) == 0 {
		return nil, 0, errNoEvents
	}
	// The due time of an event is base + sim/speed; the base is where the
	// most punctual event puts it.
	due := func(a arrival) float64 { return float64(a.sim) / benchSpeed }
	base := ms(got[0].at) - due(got[0])
	for _, a := range got {
		base = min(base, ms(a.at)-due(a))
	}
	for _, a := range got {
		lags = append(lags, ms(a.at)-due(a)-base)
	}
	return lags, ms(got[0].at), nil
}

type rawJSON []byte

func (j rawJSON) MarshalJSON() ([]byte, error) { return j, nil }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is this process's high-water resident memory in bytes (Linux
// VmHWM), 0 where /proc does not say.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
