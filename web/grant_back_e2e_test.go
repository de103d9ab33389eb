package web_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

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
// the legend names every mark, and no label collides, on a small laptop,
// a laptop and a phone, where the run leaves the mark on the first screen.
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
	for _, sz := range [][2]int{{1280, 720}, {1366, 900}, {390, 844}} {
		// The page as it opens on that screen, and Run pressed there.
		ctx := b.tab("/playground?s=" + share + "&speed=0")
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		b.do(ctx, chromedp.Click(chromedp.ID("run")))
		b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
		b.settle(ctx)
		if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
			t.Errorf("at %dx%d labels collide or run off: %v", sz[0], sz[1], bad)
		}
		if r := run(b, ctx, chromedp.Evaluate[[]float64](markBox)); r[1] < 0 || r[1]+r[3] > float64(sz[1]) || r[0] < 0 || r[0]+r[2] > float64(sz[0]) {
			t.Errorf("at %dx%d after the run the grant_back mark is at %v, off the screen", sz[0], sz[1], r)
		}
		b.shot(ctx, "", fmt.Sprintf("grant-back-run-%dx%d", sz[0], sz[1]))
	}
	b.shots(ctx, "grant-back", "#timeline")
}

// markBox is the grant_back mark's box on the screen: x, y, width, height.
const markBox = `(() => { const r = document.querySelector('#timeline [data-testid=grant-back]').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`

// TestE2EStepFromTheGrantThatCameBack: a click on the grant_back mark puts
// the playhead on it, at 5.2s, and the caption says the grant is back;
// ← and → then step to the events just before and after it, the playhead
// drawn on each, and back to the mark. Before, the click did nothing: the
// playhead stayed at the end of the run, and the keys stepped from there.
func TestE2EStepFromTheGrantThatCameBack(t *testing.T) {
	b := startBrowser(t)
	sc := grantBackScenario(t)
	share, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	var back int
	for _, e := range mustRun(t, sc).Events {
		if len(times) == 0 || times[len(times)-1] != e.T {
			times = append(times, e.T)
		}
		if e.Kind == engine.KindGrantBack {
			back = len(times) - 1
		}
	}
	if back == 0 || times[back] != 5200 {
		t.Fatalf("the run's grant_back is not at 5.2s: %v", times)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.size(ctx, 1280, 720)
	b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
	b.settle(ctx)
	r := run(b, ctx, chromedp.Evaluate[[]float64](markBox))
	b.do(ctx, chromedp.MouseClickXY(r[0]+r[2]/2, r[1]+r[3]/2))
	b.settle(ctx)
	// Where the playhead stands: the slider, the caption, and the line
	// on the timeline, against the grant_back mark's middle.
	type at struct {
		Scrub   string  `json:"scrub"`
		Caption string  `json:"caption"`
		Line    float64 `json:"line"`
		Mark    float64 `json:"mark"`
	}
	where := func() at {
		return run(b, ctx, chromedp.Evaluate[at](`(() => {
  const line = document.querySelector('#timeline [data-testid=playhead]').getBoundingClientRect(), m = document.querySelector('#timeline [data-testid=grant-back]').getBoundingClientRect();
  return { scrub: document.getElementById('scrub').value, caption: document.getElementById('now-caption').textContent, line: line.x + line.width / 2, mark: m.x + m.width / 2 };
})()`))
	}
	onMark := func(how string) {
		t.Helper()
		w := where()
		if w.Scrub != "5200" || !strings.HasPrefix(w.Caption, "5.2s · node-1 · still holds client-2's grant of token 33") {
			t.Errorf("%s: the playhead is at %sms, the caption says %q; want 5.2s, the grant that came back", how, w.Scrub, w.Caption)
		}
		if math.Abs(w.Line-w.Mark) > 1 {
			t.Errorf("%s: the playhead is drawn at x %.1f, the grant_back mark at %.1f", how, w.Line, w.Mark)
		}
	}
	onMark("after a click on the mark")
	for _, k := range []struct {
		key  string
		want int64
	}{{kb.ArrowLeft, times[back-1]}, {kb.ArrowRight, times[back]}, {kb.ArrowRight, times[back+1]}, {kb.ArrowLeft, times[back]}} {
		b.do(ctx, chromedp.KeyEvent(k.key))
		b.settle(ctx)
		if k.want == 5200 {
			onMark("back on the mark")
			continue
		}
		w := where()
		if w.Scrub != fmt.Sprint(k.want) || !strings.HasPrefix(w.Caption, engine.FormatMS(k.want)+" · ") {
			t.Errorf("from the mark the playhead stepped to %sms (%q), want the neighbouring event at %dms", w.Scrub, w.Caption, k.want)
		}
	}
}

// TestE2EThePanelShowsThePrimarysHolderBesideAGrantThatCameBack: in
// grantBackBesideScenario node-1, deposed, brings client-2's grant back at
// 5.2s while node-2, the primary, serves client-1 and renews it. At each
// playhead from there to client-1's release at 10s the lock panel names
// client-1, token 33, with the lease end node-2 last gave it, and the
// timeline draws client-1's lease through the playhead. Before, the panel
// named client-2 from 5.2s, and from 8.8s, when node-2 forgot client-2's
// grant, showed the lock free under client-1's running lease. With
// client-1 cut off with node-1 too, node-1 is the node the clients reach:
// the panel names client-2 until 8.8s, then client-1.
func TestE2EThePanelShowsThePrimarysHolderBesideAGrantThatCameBack(t *testing.T) {
	b := startBrowser(t)
	beside, reached := grantBackBesideScenario(t), grantBackBesideScenario(t)
	reached.Faults[1].Side = append(reached.Faults[1].Side, "client-1")
	for _, c := range []struct {
		name    string
		sc      engine.Scenario
		holders map[int64]string // who the panel names at each playhead
	}{
		{"beside", beside, map[int64]string{6000: "client-1", 7500: "client-1", 9000: "client-1", 9500: "client-1"}},
		{"reached", reached, map[int64]string{6000: "client-2", 7500: "client-2", 9000: "client-1", 9500: "client-1"}},
	} {
		share, err := web.EncodeShare(c.sc)
		if err != nil {
			t.Fatal(err)
		}
		events := mustRun(t, c.sc).Events
		ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
		b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
		type shown struct {
			Row   []string `json:"row"`
			Drawn []string `json:"drawn"`
		}
		for _, at := range []int64{6000, 7500, 9000, 9500} {
			holder, until := c.holders[at], int64(0)
			for _, e := range events {
				if e.T <= at && (e.Actor == holder && (e.Kind == engine.KindGranted || e.Kind == engine.KindRenewed) || e.Kind == engine.KindGrantBack && e.Holder == holder) {
					until = e.LeaseUntil
				}
			}
			b.do(ctx, choose("#scrub", fmt.Sprint(at)))
			b.settle(ctx)
			// The lock row's cells, and the clients whose lane has a
			// lease bar across the playhead.
			got := run(b, ctx, chromedp.Evaluate[shown](`(() => {
  const svg = document.getElementById('timeline'), px = svg.querySelector('[data-testid=playhead]').getBBox().x, leases = [...svg.querySelectorAll('rect.lease')].map(r => r.getBBox());
  const drawn = [...svg.querySelectorAll('rect.lane[data-lane-kind=client]')].filter(l => { const a = l.getBBox(); return leases.some(b => b.y >= a.y && b.y < a.y + a.height && b.x <= px && b.x + b.width >= px); }).map(l => l.dataset.lane);
  return { row: [...document.querySelectorAll('#lock-row td')].map(td => td.textContent), drawn };
})()`))
			want := []string{"account-42", holder, "33", engine.FormatMS(until)}
			if !slices.Equal(got.Row, want) || !slices.Contains(got.Drawn, holder) {
				t.Errorf("%s, at %s: the lock panel shows %v, the timeline draws the leases of %v; want %v, %s's lease drawn", c.name, engine.FormatMS(at), got.Row, got.Drawn, want, holder)
			}
		}
	}
}

// TestE2EABeliefRunsOnAfterAGrantThatCameBackIsLostAgain: in
// grantBackBesideScenario client-2's grant came back at 5.2s and node-2
// forgot it again at 8.8s; client-2 is refused its renewal at 9s, but its
// job is not told, and it believes it holds the lock until its stale
// write at 13s. Its lane shows that belief from 8.8s to 13s (as from
// 1.9s to 5.2s, before the grant came back), not only where the lease it
// held again begins. Before, the belief stopped at 5.2s for good.
func TestE2EABeliefRunsOnAfterAGrantThatCameBackIsLostAgain(t *testing.T) {
	b := startBrowser(t)
	share, err := web.EncodeShare(grantBackBesideScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
	for _, at := range []int64{3000, 11000} {
		// Whether a belief box in client-2's lane crosses the time at,
		// its x read off the axis's seconds.
		crossed := run(b, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
  const svg = document.getElementById('timeline'), lane = svg.querySelector('rect.lane[data-lane="client-2"]').getBBox();
  const ticks = [...svg.querySelectorAll('text')].filter(t => /^\d+s$/.test(t.textContent)).map(t => [parseFloat(t.textContent) * 1000, t.getBBox().x + t.getBBox().width / 2]);
  const [t0, x0] = ticks[0], [t1, x1] = ticks[ticks.length - 1], px = x0 + (%d - t0) * (x1 - x0) / (t1 - t0);
  return [...svg.querySelectorAll('rect.belief')].map(r => r.getBBox()).some(r => r.y >= lane.y && r.y < lane.y + lane.height && r.x <= px && r.x + r.width >= px);
})()`, at)))
		if !crossed {
			t.Errorf("client-2's lane shows no belief at %s", engine.FormatMS(at))
		}
	}
	b.labelsFit(ctx, "the grant that came back beside another primary")
	b.shots(ctx, "grant-back-beside", "#timeline")
}
