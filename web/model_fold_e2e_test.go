package web_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// modelAgreesJS runs the page's own model (static/js/model.js, the module
// the page loaded) over the golden runs: after each instant of a run, the
// leases the timeline draws as running are the lock row the server's fold
// shows (holder, token, end). Once the lock broke (a double grant or a
// duplicate token, marked on the picture) the one row shows the latest
// grant and the picture both, so a run is judged up to then. It returns
// the disagreements, and how many instants were compared.
const modelAgreesJS = `(async cases => {
  const src = document.querySelector('script[type=module][src*="playground.js"]').src;
  const M = await import(new URL('model.js', src));
  M.setBackends(JSON.parse(document.getElementById('playground-data').textContent).catalog.backends);
  const bad = [];
  let n = 0;
  for (const c of cases) {
    const after = i => { let s = null; for (const g of c.states) { if (g.after > i) break; s = g.state; } return s; };
    for (let i = 0; i < c.events.length; i++) {
      const e = c.events[i], t = e.t;
      if (i + 1 < c.events.length && c.events[i + 1].t === t) continue; // the end of an instant
      const m = M.buildModel(c.scenario, c.events.slice(0, i + 1), t, c.states);
      if (m.violations.some(v => v.kind === 'double_grant' || v.kind === 'duplicate_token')) break;
      const drawn = m.clients.flatMap(cl => cl.leases.filter(s => s.from <= t && (s.open ? s.until > t : s.to > t)).map(s => cl.name + ' token ' + (s.token || 0) + ' until ' + s.until));
      const L = after(i).lock;
      const row = L.holder && (!L.lease_until || L.lease_until > t) ? [L.holder + ' token ' + (L.token || 0) + ' until ' + L.lease_until] : [];
      n++;
      if (drawn.join() !== row.join()) bad.push(c.name + ' at ' + t + 'ms, after ' + e.actor + ' ' + e.kind + ': the timeline draws [' + drawn.join('; ') + '], the lock row shows [' + row.join('; ') + ']');
    }
  }
  return { bad, n };
})(%s)`

// TestE2EModelAgreesWithTheFold: the timeline's leases and the lock
// panel, both drawn at the playhead, never disagree on who holds the lock
// until when: after a release the service forgot, a grant whose answer was
// lost, a lease a new etcd leader extended, in every golden run.
func TestE2EModelAgreesWithTheFold(t *testing.T) {
	b := startBrowser(t)
	cases := readGolden(t)
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground")
	type result struct {
		Bad []string `json:"bad"`
		N   int      `json:"n"`
	}
	got := run(b, ctx, chromedp.Evaluate[result](fmt.Sprintf(modelAgreesJS, data), chromedp.EvalAwaitPromise))
	if got.N < 200 {
		t.Fatalf("only %d instants compared", got.N)
	}
	for _, d := range got.Bad {
		t.Error(d)
	}
}

// TestE2EALostAnswersGrantIsDrawnFromItsCommit: in ambiguous-commit
// node-2 commits client-1's acquire at 1.12 s, whose answer node-1 never
// sent; client-1 hears of it only when it asks again at 1.4 s. Its lease
// bar starts at the commit, where the lock panel shows it held, and its
// title says the answer was lost.
func TestE2EALostAnswersGrantIsDrawnFromItsCommit(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground")
	b.runPreset(ctx, "ambiguous-commit", nil)
	titles := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline [data-lane]')].length && [...document.querySelectorAll('#timeline rect.lease title')].map(t => t.textContent)`))
	want := "token 33: granted at 1.12s, its answer lost (client-1 heard of it at 1.4s), lease until 10.05s, released"
	found := false
	for _, s := range titles {
		found = found || s == want
	}
	if !found {
		t.Errorf("the leases say %q, want one that says %q", titles, want)
	}
	for _, w := range []int{1366, 390} {
		b.size(ctx, w, 900)
		b.settle(ctx)
		if bad := run(b, ctx, chromedp.Evaluate[[]string](labelTrouble)); len(bad) > 0 {
			t.Errorf("at %d px labels collide or run off: %v", w, bad)
		}
	}
	b.shots(ctx, "ambiguous-commit-lease", "#timeline")
}
