package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// forgottenReleaseScenario is a single lock server that saves every 1.5 s
// and crashes at 2.2 s, after client-1 gave the lock back at 2 s: it
// restarts from the save of 1.5 s, which still has client-1 holding the
// lock until 10 s, and refuses client-2 until then.
func forgottenReleaseScenario(t *testing.T) engine.Scenario {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"title":"A lock server forgets a release","seed":1,"fencing":true,"until":"20s",
		"lock":{"backend":"single","lease":"10s","persist_every":"1500ms"},
		"storage":{"key":"account-42","initial":1000},
		"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"work","for":"2s"},{"do":"release"}]},
		{"name":"client-2","start":"3s","retry_every":"2s","on_refused":"retry","steps":[{"do":"acquire"},{"do":"release"}]}],
		"faults":[{"at":"2200ms","do":"crash","target":"node-1"},{"at":"2500ms","do":"restart","target":"node-1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestE2EAForgottenReleaseIsDrawn: where the lock service forgot a
// release, client-1's lane shows the lease it gave back running again,
// from the restart to its end at 10 s, with a mark that says why (its
// title, and its words on the picture or, on a phone without room, in the
// list under it), and the legend names the mark.
func TestE2EAForgottenReleaseIsDrawn(t *testing.T) {
	b := startBrowser(t)
	share, err := web.EncodeShare(forgottenReleaseScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `(document.querySelector('[data-testid=verdict-text]')?.textContent || '').includes('forgot 1 release')`, "the verdict")
	b.settle(ctx)
	title := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('#timeline [data-testid=lease-back] title')?.textContent || ''`))
	if !strings.HasPrefix(title, "token 33 came back at 2.5s, until 10s: the server restarted from the state it saved at 1.5s") {
		t.Fatalf("the mark of the forgotten release says %q", title)
	}
	lease := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline rect.lease.back title')].map(t => t.textContent).join('\n')`))
	if want := "token 33: given back at 2s, came back at 2.5s, lease until 10s, expired"; lease != want {
		t.Errorf("the lease brought back says %q, want %q", lease, want)
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	for _, sz := range [][2]int{{1366, 900}, {390, 844}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		said := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline text, #tl-notes li')].map(t => t.textContent).join('\n')`))
		if !strings.Contains(said, "came back: the server restarted from the state it saved at 1.5s, before client-1's release reached it at 2s") {
			t.Errorf("at %dx%d the forgotten release is neither drawn nor listed under the timeline:\n%s", sz[0], sz[1], said)
		}
		if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
			t.Errorf("at %dx%d labels collide or run off: %v", sz[0], sz[1], bad)
		}
	}
	b.shots(ctx, "release-forgotten", "#timeline")
	b.size(ctx, 1366, 900)
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.settle(ctx)
	b.shot(ctx, "", fmt.Sprintf("release-forgotten-top-%dx%d", 1366, 900))
}
