package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestE2EAnEndedGrantForgottenIsDrawnExpired: a single lock server that
// saved only at 0 s is down from 1 s to 3 s, while client-1's 2 s lease
// runs out; restarting from that save it forgets the grant and its token
// (grant_forgotten, ended). client-1 lost nothing, so its lease bar ends
// at 2 s as a lease that ran out, not as one the service took away.
func TestE2EAnEndedGrantForgottenIsDrawnExpired(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(`{"title":"A lock server forgets a grant whose lease ran out","seed":1,"fencing":true,"until":"12s",
		"lock":{"backend":"single","lease":"2s","persist_every":"10s"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"500ms"},{"do":"read"},{"do":"write","add":1}]},
		{"name":"client-2","start":"4s","steps":[{"do":"acquire"},{"do":"release"}]}],
		"faults":[{"at":"1s","do":"crash","target":"node-1"},{"at":"3s","do":"restart","target":"node-1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	share, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t)
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `(document.querySelector('[data-testid=verdict-text]')?.textContent || '').includes('after its lease ended')`, "the verdict")
	b.settle(ctx)
	titles := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline rect.lease title')].map(t => t.textContent).join('\n')`))
	var first string
	for _, s := range strings.Split(titles, "\n") {
		if strings.HasPrefix(s, "token 33: granted at 0s") {
			first = s
		}
	}
	if !strings.HasSuffix(first, "lease until 2s, expired") {
		t.Errorf("client-1's lease, forgotten after it ran out, says %q; want it to end as expired at 2s (all leases: %q)", first, titles)
	}
}
