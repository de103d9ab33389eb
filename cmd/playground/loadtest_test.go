package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// serveInProcess runs serve on a loopback port in this process and
// returns its base URL; it stops when the test ends.
func serveInProcess(tb testing.TB, extra ...string) string {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(tb.TempDir(), "data"), "--log-format", "json"}, extra...)
	go func() {
		done <- run(ctx, args, noEnv, w, io.Discard)
		w.Close()
	}()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("serve: %v", err)
		}
	})
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if err != nil {
		tb.Fatalf("reading the address: %v", err)
	}
	go io.Copy(io.Discard, r)
	return regexp.MustCompile(`http://\S+`).FindString(line)
}

// TestLoadtestSmallClassAllSucceeds plays a class of 12 arriving at once
// on a server with two slots: every join, run and check succeeds, and the
// server ends with nothing live or waiting. Whether a run had to wait
// depends on how fast the machine runs them, so it is not asserted here;
// web/admit_test.go shows the queue's decisions without a clock.
func TestLoadtestSmallClassAllSucceeds(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a class")
	}
	base := serveInProcess(t, "--run-slots", "2", "--max-live-runs", "8")
	rep, err := playClass(t.Context(), base, classPlan{Students: 12, Presets: []string{"paused-holder", "ride-claim"},
		Speed: 0, Exercises: defaultAnswers, Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	for name, tl := range map[string]tally{"joins": rep.Joins, "runs": rep.Runs, "checks": rep.Checks} {
		want := 12
		switch name {
		case "runs":
			want = 24
		case "checks":
			want = 36
		}
		if tl.OK != want || tl.Failed != 0 {
			t.Errorf("%s: %d ok, %d failed, want %d ok: %v", name, tl.OK, tl.Failed, want, rep.Errors)
		}
	}
	if !waitDrained(t.Context(), base) {
		t.Error("runs or websockets left after the class")
	}
}

// BenchmarkClassLoad plays a class against a server in this process and
// reports the load test's figures: the share of runs and checks that
// succeed, the p99 wait of a run for its slot, the p99 time to answer a
// check and /healthz. The class's size comes from
// PLAYGROUND_BENCH_STUDENTS (default 20, arriving over 2 s, so that CI
// runs it quickly); docs/load.md has the full class's figures from
// `playground loadtest`.
//
// Rerun: go test ./cmd/playground -run '^$' -bench ClassLoad -benchtime 1x
func BenchmarkClassLoad(b *testing.B) {
	students := 20
	if v, err := strconv.Atoi(os.Getenv("PLAYGROUND_BENCH_STUDENTS")); err == nil && v > 0 {
		students = v
	}
	base := serveInProcess(b)
	plan := classPlan{Students: students, Arrival: time.Duration(students) * 100 * time.Millisecond,
		Presets: []string{"paused-holder", "ride-claim"}, Speed: 5, Exercises: defaultAnswers, Retries: 3}
	var rep *classReport
	for b.Loop() {
		var err error
		if rep, err = playClass(b.Context(), base, plan); err != nil {
			b.Fatal(err)
		}
	}
	share := func(t tally) float64 { return 100 * float64(t.OK) / float64(max(1, t.OK+t.Failed)) }
	b.ReportMetric(share(rep.Runs), "runs-ok-%")
	b.ReportMetric(share(rep.Checks), "checks-ok-%")
	b.ReportMetric(float64(rep.Runs.P99)/1e6, "run-wait-p99-ms")
	b.ReportMetric(float64(rep.Checks.P99)/1e6, "check-p99-ms")
	b.ReportMetric(float64(rep.Healthz.P99)/1e6, "healthz-p99-ms")
}
