package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSizeFlagsTakeBinaryUnits(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "64KiB": 64 << 10, "8MiB": 8 << 20, "1GiB": 1 << 30, " 2 GiB ": 2 << 30, "512B": 512} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1GB", "-1MiB", "lots", "99999999999GiB"} {
		if _, err := parseSize(bad); err == nil || !strings.Contains(err.Error(), "KiB, MiB or GiB") {
			t.Errorf("parseSize(%q): %v, want an error naming the units", bad, err)
		}
	}
	if got := formatSize(8 << 20); got != "8MiB" {
		t.Errorf("formatSize(8MiB) = %q", got)
	}
}

func TestServeRefusesAMemoryBudgetTooSmallForItsQueues(t *testing.T) {
	err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--memory-budget", "64MiB", "--max-queue-bytes", "32MiB"}, noEnv, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "max-queue-bytes") || !strings.Contains(err.Error(), "quarter of memory-budget") {
		t.Errorf("err = %v, want one naming max-queue-bytes and the budget", err)
	}
	err = run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0"}, func(k string) string {
		if k == "PLAYGROUND_MEMORY_BUDGET" {
			return "a lot"
		}
		return ""
	}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "PLAYGROUND_MEMORY_BUDGET") {
		t.Errorf("err = %v, want one naming PLAYGROUND_MEMORY_BUDGET", err)
	}
}

// TestMetricsOnTheirOwnAddress serves /metrics on --metrics-addr, which
// can be kept private, and not on --addr.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--data", t.TempDir()}, noEnv, w, io.Discard)
		w.Close()
	}()
	r := bufio.NewReader(out)
	var urls []string
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the addresses: %v", err)
		}
		urls = append(urls, regexp.MustCompile(`http://\S+`).FindString(line))
	}
	go io.Copy(io.Discard, r)
	main, metrics := urls[0], urls[1]
	if !strings.HasSuffix(metrics, "/metrics") {
		t.Fatalf("second line names %q, want the metrics URL", metrics)
	}
	status := func(url string) (int, string) {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := status(metrics); code != 200 || !strings.Contains(body, "playground_live_runs ") {
		t.Errorf("--metrics-addr: %d %.100s", code, body)
	}
	if code, _ := status(main + "/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics on --addr: %d, want 404", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestServeChaosTimeoutReachesTheServer: --chaos-timeout is the deadline
// a chaos batch is answered with (its bounds are checked with the other
// flags', TestServeBadConfigNamesTheFlag). 1,000 Raft schedules take far longer than
// 100 ms on any machine, so the batch is stopped and told so.
func TestServeChaosTimeoutReachesTheServer(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--chaos-timeout", "100ms"}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	url := regexp.MustCompile(`http://\S+`).FindString(line)
	res, err := http.Post(url+"/api/chaos", "application/json", strings.NewReader(`{"backend":"raft","runs":1000}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "took longer than 100ms") {
		t.Errorf("a batch under --chaos-timeout 100ms: %d %s", res.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestServeWritesACPUProfileUntilItStops: --cpu-profile profiles the
// server from start-up and writes the profile (gzip-compressed pprof) when
// it stops, as a load test's SIGTERM stops it.
func TestServeWritesACPUProfileUntilItStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--cpu-profile", path}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	base := regexp.MustCompile(`http://\S+`).FindString(line)
	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	go io.Copy(io.Discard, out)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("the profile: %d bytes, %v; want a gzip-compressed pprof profile", len(data), err)
	}
	if err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--cpu-profile", filepath.Join(t.TempDir(), "no", "such", "dir", "p")}, noEnv, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--cpu-profile") {
		t.Errorf("a profile that cannot be written: %v, want an error naming --cpu-profile", err)
	}
}
