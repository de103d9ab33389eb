package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// getFrom sends a GET from client with extra headers and returns the
// status.
func getFrom(t *testing.T, client *http.Client, u string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestCrossSiteHistoryFetchesRunNothing plays hole 5 of the hostile
// client: a page elsewhere embeds history links as images, so every
// visitor's browser would run the engine. Those fetches are refused at
// once, even with the only slot taken; a classmate opening a link from
// the playground gets its history; and a link answered once is answered
// again from the cache without a slot, to the classmate and to someone
// who followed the link from another site.
func TestCrossSiteHistoryFetchesRunNothing(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 1, QueueWait: 200 * time.Millisecond})
	link := url.QueryEscape(shareOf(t, "raft-failover"))
	embed := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}
	own := map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
	followed := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
	attacker, mate := clientFrom("127.0.0.2"), clientFrom("127.0.0.3")

	holder := holdSlot(t, ts.URL)
	for _, path := range []string{"/api/history", "/playground/history"} {
		for range 20 {
			if status := getFrom(t, attacker, ts.URL+path+"?s="+link, embed); status != http.StatusForbidden {
				t.Fatalf("an embedded cross-site GET %s: %d, want 403", path, status)
			}
		}
	}
	if n := srv.QueuedRuns(); n != 0 {
		t.Errorf("%d runs waiting after the cross-site fetches, want none", n)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	waitFor(t, func() bool { return srv.LiveRuns() == 0 })

	for _, path := range []string{"/api/history", "/playground/history"} {
		if status := getFrom(t, mate, ts.URL+path+"?s="+link, own); status != http.StatusOK {
			t.Fatalf("the classmate's GET %s: %d, want 200", path, status)
		}
	}
	// The slot taken again: the same link is answered from the cache (a
	// run would wait 200 ms for the slot, then be refused 503).
	holder = holdSlot(t, ts.URL)
	for _, path := range []string{"/api/history", "/playground/history"} {
		if status := getFrom(t, mate, ts.URL+path+"?s="+link, own); status != http.StatusOK {
			t.Errorf("the classmate's GET %s again, the slot taken: %d, want 200 from the cache", path, status)
		}
		if status := getFrom(t, clientFrom("127.0.0.4"), ts.URL+path+"?s="+link, followed); status != http.StatusOK {
			t.Errorf("GET %s from a link on another site: %d, want 200", path, status)
		}
	}
	other := url.QueryEscape(shareOf(t, "async-failover"))
	if status := getFrom(t, mate, ts.URL+"/api/history?s="+other, own); status != http.StatusServiceUnavailable {
		t.Errorf("another link with the slot taken: %d, want 503 (it needs a run)", status)
	}
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
}
