package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// grantBackScenario: node-1 grants client-2 the lock at 1s and is cut off
// alone at 1.2s, before the copy reaches node-2, which is promoted without
// it and grants client-1 the same token. node-2 crashes at 2.5s; when the
// partition heals at 5.2s, node-1, deposed, still holds client-2's grant
// and answers the clients again: the grant is back, and node-1 renews it.
func grantBackScenario(t *testing.T) engine.Scenario {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"title":"A forgotten grant comes back","seed":1,"fencing":true,"until":"30s",
		"lock":{"backend":"async-replica","nodes":2,"lease":"10s","first_token":33,"replication_lag":"500ms","election":"700ms"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-2","start":"1s","renew_every":"2s","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"12s"},{"do":"write","add":100},{"do":"release"}]},
		{"name":"client-1","start":"2s","retry_every":"500ms","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"1s"},{"do":"write","add":10},{"do":"release"}]}],
		"faults":[{"at":"1200ms","do":"partition","target":"node-1","for":"4s"},{"at":"2500ms","do":"crash","target":"node-2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestE2EAGrantThatCameBackIsDrawn: where a grant the promoted replica
// forgot comes back (grant_back), client-2's lane shows its lease running
// again from 5.2s, marked as a forgotten grant that came back, not given
// back, and renewed from there; the lock panel shows client-2 holding it;
// the legend names every mark, and no label collides, on a laptop and on
// a phone.
func TestE2EAGrantThatCameBackIsDrawn(t *testing.T) {
	b := startBrowser(t)
	share, err := web.EncodeShare(grantBackScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `(document.querySelector('[data-testid=verdict-text]')?.textContent || '').includes('forgot 1 grant')`, "the verdict")
	b.settle(ctx)
	lease := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline rect.lease.back title')].map(t => t.textContent).join('\n')`))
	if !strings.HasPrefix(lease, "token 33: forgotten, came back at 5.2s, lease until ") {
		t.Errorf("the grant that came back is drawn %q", lease)
	}
	title := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('#timeline [data-testid=lease-back] title')?.textContent || ''`))
	if !strings.HasPrefix(title, "token 33 came back at 5.2s") || !strings.HasSuffix(title, ": node-1 still held it") {
		t.Errorf("the mark of the grant that came back says %q", title)
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	for _, sz := range [][2]int{{1366, 900}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
			t.Errorf("at %dx%d labels collide or run off: %v", sz[0], sz[1], bad)
		}
	}
	b.shots(ctx, "grant-back", "#timeline")
}
