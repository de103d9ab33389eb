package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

func shareOf(t *testing.T, name string) string {
	t.Helper()
	p, err := engine.LoadPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := web.EncodeShare(p.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAPIHistoryChecksTheRunsLockHistory: a failover that hands token 33
// out twice has a history no single lock could give; a Raft failover's
// is linearizable.
func TestAPIHistoryChecksTheRunsLockHistory(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	for name, want := range map[string]bool{"async-failover": false, "raft-failover": true} {
		status, body := get(t, ts.URL+"/api/history?s="+shareOf(t, name))
		var h struct {
			Operations []struct {
				Input  struct{ Op, Client string }
				Output struct{ OK bool }
			}
			Linearizable bool
			Summary      engine.Summary
			Conflict     *engine.Conflict
		}
		if err := json.Unmarshal([]byte(body), &h); err != nil || status != http.StatusOK {
			t.Fatalf("%s: %d %s", name, status, body)
		}
		if h.Linearizable != want || len(h.Operations) < 3 || (h.Conflict == nil) != want {
			t.Errorf("%s: linearizable %v with %d operations, want %v", name, h.Linearizable, len(h.Operations), want)
		}
	}
	status, body := get(t, ts.URL+"/api/history")
	if status != http.StatusBadRequest || !strings.Contains(body, `"field":"s"`) {
		t.Errorf("no scenario: %d %s", status, body)
	}
}

// TestHistoryPageNamesTheConflict: the history page of a failover that
// hands token 33 out twice names the two grants (clients by name, times,
// answers), draws them on an axis that takes the page's width, links back
// to the run's timeline and runs no script; a linearizable run's page
// names no conflict.
func TestHistoryPageNamesTheConflict(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	share := shareOf(t, "async-failover")
	res, err := http.Get(ts.URL + "/playground/history?s=" + share)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, page)
	}
	for _, want := range []string{
		"Not linearizable",
		"<strong>client-1</strong>: acquire → token 33 until 10s",
		"<strong>client-2</strong>: acquire → token 33 until 11.5s",
		"applied at 0s", "applied at 1.5s",
		`href="/playground?s=` + share + `&amp;run=1"`,
		`data-testid="conflict-axis"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(res.Header.Get("Content-Security-Policy"), "unsafe-inline") {
		t.Error("the history page needs no script and no inline allowance")
	}
	if regexp.MustCompile(`width="\d{4,}`).MatchString(page) {
		t.Error("a drawing with a fixed width wider than a phone")
	}
	status, body := get(t, ts.URL+"/playground/history?s="+shareOf(t, "raft-failover"))
	if status != http.StatusOK || !strings.Contains(body, "✓ Linearizable") || strings.Contains(body, "conflict-op") {
		t.Errorf("raft-failover: %d, conflict named or verdict missing", status)
	}
	status, body = get(t, ts.URL+"/playground/history")
	if status != http.StatusBadRequest {
		t.Errorf("no scenario: %d %s", status, body)
	}
}
