package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/net/html"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// registerToy registers, from this test file, a backend the page has never
// heard of: the single server's service and protocol under a new name,
// label and words, a word for its tokens and an event kind of its own,
// marked on a node's lane with a legend line, and removes it when the test
// ends.
func registerToy(t *testing.T) {
	t.Helper()
	b, ok := engine.LookupBackend(engine.BackendSingle)
	if !ok {
		t.Fatal("no single backend to copy")
	}
	b.Name, b.Label, b.Follower = "toy-server", "Toy lock server", "toy-role"
	b.TokenWord = "ticket"
	b.Kinds = []engine.EventKind{{Kind: "toy_moment", Doc: "node: the toy's moment", Lane: "node", Shape: "dot", Class: "m-check",
		Label: "toy moment for {client}", Legend: "the toy's own moment"}}
	if err := engine.RegisterBackend(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend("toy-server") })
}

// TestPageControlsComeFromTheRegistry: the playground's backend menu and
// the catalog the page's controls read offer a backend registered after
// the server started, in its entry's words; the legend names its own
// mark, the catalog carries how to draw it and its token word, and a run of
// it is served.
func TestPageControlsComeFromTheRegistry(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	_, before := get(t, ts.URL+"/playground")
	if strings.Contains(before, "Toy lock server") {
		t.Fatal("the toy is offered before it is registered")
	}
	registerToy(t)
	status, body := get(t, ts.URL+"/playground")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	doc := parseHTML(t, body)
	menu := oneByTestID(t, doc, "backend")
	var offered []string
	for _, o := range findAll(menu, func(n *html.Node) bool { return n.Data == "option" }) {
		v, _ := attr(o, "value")
		offered = append(offered, v+"="+text(o))
	}
	if !slices.Contains(offered, "toy-server=Toy lock server") {
		t.Errorf("backend menu offers %v, not the toy", offered)
	}
	if !strings.Contains(before, `data-legend="session-expired"`) || strings.Contains(before, "toy-moment") {
		t.Error("before the toy, the legend should name the built-in backends' marks and not the toy's")
	}
	items := findAll(oneByTestID(t, doc, "legend"), func(n *html.Node) bool { v, _ := attr(n, "data-legend"); return v == "toy-moment" })
	if len(items) != 1 || !strings.Contains(text(items[0]), "the toy's own moment") {
		t.Errorf("the legend has %d entries for the toy's mark, want one in its entry's words", len(items))
	}
	data := findAll(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "playground-data" })
	if len(data) != 1 {
		t.Fatal("no playground-data on the page")
	}
	var pd struct {
		Catalog web.Catalog `json:"catalog"`
	}
	if err := json.Unmarshal([]byte(text(data[0])), &pd); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(pd.Catalog.Backends, func(b web.BackendKind) bool { return b.Name == "toy-server" })
	if i < 0 {
		t.Fatalf("the controls' catalog lacks the toy: %+v", pd.Catalog.Backends)
	}
	if k := pd.Catalog.Backends[i]; !slices.Equal(k.Nodes, []int{1}) || k.DefaultNodes != 1 || !k.Fencing || !slices.Equal(k.Settings, []string{"persist_every", "lock_delay"}) {
		t.Errorf("toy's controls: %+v", k)
	}
	want := []web.KindMark{{Kind: "toy_moment", Shape: "dot", Class: "m-check", Label: "toy moment for {client}"}}
	if k := pd.Catalog.Backends[i]; k.Token != "ticket" || !slices.Equal(k.Marks, want) {
		t.Errorf("toy's drawing: token %q, marks %+v", k.Token, k.Marks)
	}
	status, out := post(t, ts.URL+"/api/run", `{"lock":{"backend":"toy-server"},"clients":[{"name":"a","steps":[{"do":"acquire"},{"do":"release"}]}]}`)
	if status != http.StatusOK || !strings.Contains(string(out), `"kind":"granted"`) {
		t.Errorf("a run of the toy: %d %s", status, out)
	}
}

// TestStateNamesTheToysRole: the state panel names a node that does not
// lead by its backend's entry.
func TestStateNamesTheToysRole(t *testing.T) {
	registerToy(t)
	s := web.NewState(engine.Scenario{Lock: engine.Lock{Backend: "toy-server", Nodes: 1},
		Clients: []engine.Client{{Name: "a", Steps: []engine.Step{{Do: engine.StepAcquire}}}}})
	if len(s.Nodes) != 1 || s.Nodes[0].Role != "toy-role" {
		t.Errorf("nodes %+v, want node-1 as toy-role", s.Nodes)
	}
}

// TestOptionInputsTakeTheEntrysBounds: the copy-lag input goes as far as
// the backends' entries allow, and a backend registered with a longer lag
// raises it.
func TestOptionInputsTakeTheEntrysBounds(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	lagMax := func() string {
		_, body := get(t, ts.URL+"/playground")
		v, _ := attr(oneByTestID(t, parseHTML(t, body), "lag"), "max")
		return v
	}
	if got := lagMax(); got != "60000" {
		t.Errorf("copy lag input's max %s, want async-replica's 60000", got)
	}
	b, _ := engine.LookupBackend(engine.BackendAsyncReplica)
	b.Name = "slow-replica"
	b.Options[0].Max = 90_000
	if err := engine.RegisterBackend(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend("slow-replica") })
	if got := lagMax(); got != "90000" {
		t.Errorf("copy lag input's max %s, want the slow replica's 90000", got)
	}
}

// TestE2EPageDrawsARegisteredBackendsMarks registers, from this file, a
// copy of etcd under another name whose entry calls its tokens "ticket"
// and declares its lease extension as a dot with its own words. The page
// has no code for either: it draws the grants and the extension of a run of
// the copy as the entry says, and names every mark in the legend.
// Screenshots at 1366x900 and 390x844.
func TestE2EPageDrawsARegisteredBackendsMarks(t *testing.T) {
	b := startBrowser(t)
	toy, ok := engine.LookupBackend(engine.BackendEtcd)
	if !ok {
		t.Fatal("no etcd backend to copy")
	}
	toy.Name, toy.Label, toy.TokenWord = "toy-etcd", "Toy etcd", "ticket"
	toy.Kinds[0].Shape, toy.Kinds[0].Class, toy.Kinds[0].Label = "dot", "m-check", "toy: lease {token} moved to {until}"
	if err := engine.RegisterBackend(toy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend(toy.Name) })

	ctx := runPresetOnBackend(t, b, "etcd-leader-change", toy.Name)

	labels := run(b, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#timeline text')].map(t => t.textContent).join(' | ')`))
	if !strings.Contains(labels, "ticket 33 → client-1") || strings.Contains(labels, "rev 33") {
		t.Errorf("the grant should carry the toy's word for its token: %s", labels)
	}
	if !strings.Contains(labels, "toy: lease 33 moved to 24s") {
		t.Errorf("the extension should be labelled in the toy's words: %s", labels)
	}
	if n := count(b, ctx, "#timeline circle[data-mark=lease-extended]"); n != 1 {
		t.Errorf("%d extensions drawn as the toy's dot, want 1", n)
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	b.shots(ctx, "registry-toy-etcd", "#timeline")
	// The legend, opened: the backends' own marks stand among the common
	// ones, drawn as their entries say.
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('legend-box').open = true`))
	for _, id := range []string{"lease-extended", "session-expired", "watching", "watch-fired"} {
		if n := count(b, ctx, fmt.Sprintf("#legend-box [data-legend=%q] svg", id)); n != 1 {
			t.Errorf("the legend draws %d pictures for %s, want 1", n, id)
		}
	}
	b.shots(ctx, "registry-legend", "#legend-box")
}

// registerMajorityToy registers a copy of Redlock under another name whose
// servers together speak as "toy-servers": the page knows neither name.
func registerMajorityToy(t *testing.T) engine.Backend {
	t.Helper()
	toy, ok := engine.LookupBackend(engine.BackendRedlock)
	if !ok {
		t.Fatal("no redlock backend to copy")
	}
	toy.Name, toy.Label, toy.Actor = "toy-majority", "Toy majority", "toy-servers"
	if err := engine.RegisterBackend(toy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend(toy.Name) })
	return toy
}

// TestCatalogSendsABackendsHolds: the catalog tells the page which
// backends' nodes each hold the lock on their own (a majority's), and who
// speaks for them together, from their entries; the legend names a node's
// hold once, in the first such entry's words.
func TestCatalogSendsABackendsHolds(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	registerMajorityToy(t)
	cat := web.TheCatalog()
	holds := map[string]string{}
	for _, b := range cat.Backends {
		if b.Holds {
			holds[b.Name] = b.Actor
		}
	}
	if want := map[string]string{engine.BackendRedlock: "redlock", "toy-majority": "toy-servers"}; fmt.Sprint(holds) != fmt.Sprint(want) {
		t.Errorf("backends with holds and their actors: %v, want %v", holds, want)
	}
	_, page := get(t, ts.URL+"/playground")
	items := findAll(oneByTestID(t, parseHTML(t, page), "legend"), func(n *html.Node) bool { v, _ := attr(n, "data-legend"); return v == "hold" })
	if len(items) != 1 || !strings.Contains(text(items[0]), "Redlock server holds the lock for a client") {
		t.Errorf("the legend has %d entries for a node's hold, want one in Redlock's words", len(items))
	}
}

// TestE2EPageDrawsACopyOfRedlocksHolds: a copy of Redlock under another
// name, whose servers together speak as "toy-servers", is drawn as Redlock
// is from its catalog entry alone: a lane per server with the clients it
// holds the lock for (a majority each), no role on the servers, no lane for
// the servers' common voice, no history button, every mark in the legend.
// Screenshots at 1366x900 and 390x844.
func TestE2EPageDrawsACopyOfRedlocksHolds(t *testing.T) {
	b := startBrowser(t)
	toy := registerMajorityToy(t)
	ctx := runPresetOnBackend(t, b, "redlock-clock-jump", toy.Name)
	lanes := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline rect.lane')].map(r => r.dataset.lane)`))
	if slices.Contains(lanes, "toy-servers") || !slices.Contains(lanes, "node-5") {
		t.Errorf("lanes %v: want the five servers and no lane for their common voice", lanes)
	}
	holds := run(b, ctx, chromedp.Evaluate[map[string]int](`(() => {
		const out = {};
		for (const h of document.querySelectorAll('#timeline [data-testid=node-hold]')) out[h.dataset.client] = (out[h.dataset.client] || 0) + 1;
		return out;
	})()`))
	if holds["client-1"] < 3 || holds["client-2"] < 3 {
		t.Errorf("holds per client %v: want a majority (3) of the servers for each", holds)
	}
	if n := count(b, ctx, "#timeline [data-mark=follower], #timeline [data-mark=leader]"); n != 0 {
		t.Errorf("%d role bars on servers that have no role", n)
	}
	if n := count(b, ctx, "#show-history"); n != 0 {
		t.Error("the history button is offered for a backend whose holds are counted at the client")
	}
	if m := run(b, ctx, chromedp.Evaluate[[]string](unexplainedMarks)); len(m) > 0 {
		t.Errorf("marks the legend does not name: %v", m)
	}
	b.shots(ctx, "registry-toy-majority", "#timeline")
}

// runPresetOnBackend runs a preset in the page on another backend (a
// registered copy) at full speed, and waits until the page shows the
// verdict the engine gives that run.
func runPresetOnBackend(t *testing.T, b *browser, preset, backend string) context.Context {
	t.Helper()
	ctx := b.tab("/playground")
	b.pick(ctx, preset)
	b.do(ctx, choose("#backend", backend), setSpeed(0), chromedp.Click(chromedp.ID("run")))
	p, err := engine.LoadPreset(preset)
	if err != nil {
		t.Fatal(err)
	}
	p.Scenario.Lock.Backend = backend
	res := mustRun(t, p.Scenario)
	_, checks, _ := strings.Cut(engine.Verdict(res.Summary), ": ")
	b.waitVerdict(ctx, checks[1:])
	return ctx
}
