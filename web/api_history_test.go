package web_test

import (
	"crypto/sha256"
	"encoding/base64"
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
		}
		if err := json.Unmarshal([]byte(body), &h); err != nil || status != http.StatusOK {
			t.Fatalf("%s: %d %s", name, status, body)
		}
		if h.Linearizable != want || len(h.Operations) < 3 {
			t.Errorf("%s: linearizable %v with %d operations, want %v", name, h.Linearizable, len(h.Operations), want)
		}
	}
	status, body := get(t, ts.URL+"/api/history")
	if status != http.StatusBadRequest || !strings.Contains(body, `"field":"s"`) {
		t.Errorf("no scenario: %d %s", status, body)
	}
}

// TestHistoryPageAllowsOnlyItsOwnScript: porcupine's page carries its
// script inline; the page's policy allows that script by its hash alone.
func TestHistoryPageAllowsOnlyItsOwnScript(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	res, err := http.Get(ts.URL + "/playground/history?s=" + shareOf(t, "async-failover"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("%d, script found: %v", res.StatusCode, m != nil)
	}
	sum := sha256.Sum256([]byte(m[1]))
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") || strings.Contains(csp, "unsafe-inline' ;") || strings.Contains(csp, "script-src 'unsafe-inline'") {
		t.Errorf("policy %q does not allow exactly the page's script", csp)
	}
}
