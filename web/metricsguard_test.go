package web_test

import (
	"net/http"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestMetricsArePrivateOnThePublicPort: /metrics on the main port answers
// a scrape from this machine, not a client elsewhere (another address)
// nor one relayed by a proxy; with a token, exactly the scrapes that
// carry it.
func TestMetricsArePrivateOnThePublicPort(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	if a := newPerson(t, ts.URL).get("/metrics"); a.status != http.StatusOK {
		t.Errorf("a scrape from this machine: %d", a.status)
	}
	if a := personFrom(t, ts.URL, "127.0.0.2").get("/metrics"); a.status != http.StatusOK {
		t.Errorf("127.0.0.2 is this machine too: %d", a.status)
	}
	relayed := newPerson(t, ts.URL)
	relayed.header.Set("X-Forwarded-For", "203.0.113.7")
	if a := relayed.get("/metrics"); a.status != http.StatusForbidden {
		t.Errorf("a scrape relayed by a proxy: %d, want 403", a.status)
	}

	ts, _ = startServer(t, web.Config{MetricsToken: "s3cret"})
	if a := newPerson(t, ts.URL).get("/metrics"); a.status != http.StatusUnauthorized {
		t.Errorf("with a token set, a scrape without it: %d, want 401", a.status)
	}
	with := newPerson(t, ts.URL)
	with.header.Set("Authorization", "Bearer s3cret")
	with.header.Set("X-Forwarded-For", "203.0.113.7")
	if a := with.get("/metrics"); a.status != http.StatusOK {
		t.Errorf("a scrape with the token, through a proxy: %d, want 200", a.status)
	}
}
