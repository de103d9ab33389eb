package main

import (
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
