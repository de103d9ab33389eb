package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

func TestHomeListsPresetsAsCards(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, body := get(t, ts.URL+"/")
	if status != http.StatusOK {
		t.Fatalf("GET /: status %d", status)
	}
	doc := parseHTML(t, body)
	cards := byTestID(doc, "preset-card")
	if len(cards) != len(engine.PresetNames()) {
		t.Fatalf("%d preset cards, want one per preset (%d)", len(cards), len(engine.PresetNames()))
	}
	for i, name := range engine.PresetNames() {
		if got, _ := attr(cards[i], "data-preset"); got != name {
			t.Errorf("card %d is %q, want %q (teaching order)", i, got, name)
		}
		links := findAll(cards[i], func(n *html.Node) bool { return n.Data == "a" })
		if href, _ := attr(links[0], "href"); href != "/playground?preset="+name {
			t.Errorf("card %s links to %q", name, href)
		}
		// A card sets the scene and asks; what happens is not on it.
		p, _ := engine.LoadPreset(name)
		if got := text(oneByTestID(t, cards[i], "preset-question")); got != p.Question {
			t.Errorf("card %s says %q, want its question", name, got)
		}
		if strings.Contains(text(doc), p.Watch) {
			t.Errorf("the home page tells what happens in %s before a run", name)
		}
	}
}

func TestPlaygroundRendersControls(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, body := get(t, ts.URL+"/playground?preset=nightly-total")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	doc := parseHTML(t, body)
	for _, id := range []string{"controls", "preset", "fencing", "until", "backend", "nodes", "lease", "latency", "clients",
		"fault-list", "add-fault", "json", "run", "back", "play", "forward", "stop", "speed", "start-paused", "compare", "chaos", "share",
		"actors", "actors-drawer", "verdict", "timeline", "zoom-in", "zoom-out", "zoom-fit", "scrub", "legend", "lock-panel", "storage-panel", "event-log"} {
		oneByTestID(t, doc, id)
	}
	selected := findAll(oneByTestID(t, doc, "preset"), func(n *html.Node) bool { _, ok := attr(n, "selected"); return n.Data == "option" && ok })
	if len(selected) != 1 || text(selected[0]) != "The nightly total and a frozen worker" {
		t.Errorf("selected preset option: %v", selected)
	}
	p, _ := engine.LoadPreset("nightly-total")
	if got := text(oneByTestID(t, doc, "question")); got != p.Question {
		t.Errorf("question = %q, want the preset's", got)
	}
	// What happens is in the page for the run to unfold, folded away until
	// then: a closed details element whose summary says it spoils the run.
	if got := text(oneByTestID(t, doc, "watch")); got != p.Watch {
		t.Errorf("watch text = %q, want the preset's", got)
	}
	outcome := oneByTestID(t, doc, "outcome")
	if _, open := attr(outcome, "open"); open || outcome.Data != "details" {
		t.Errorf("the outcome is a <%s> open=%v; want a closed details element before a run", outcome.Data, open)
	}
	if s := text(oneByTestID(t, doc, "outcome-summary")); !strings.Contains(s, "spoils the run") {
		t.Errorf("the outcome's summary does not warn that it spoils the run: %q", s)
	}
	nav := findAll(doc, func(n *html.Node) bool { v, _ := attr(n, "aria-current"); return n.Data == "a" && v == "page" })
	if len(nav) != 1 || text(nav[0]) != "Playground" {
		t.Errorf("navigation marks %d links as the current page, want the Playground link alone", len(nav))
	}
	if v, _ := attr(oneByTestID(t, doc, "verdict"), "aria-live"); v != "polite" {
		t.Errorf("verdict aria-live = %q, want polite", v)
	}
	// The script starts from the JSON data block, which must hold the
	// scenario and the catalog.
	var data struct {
		Preset   string          `json:"preset"`
		Scenario engine.Scenario `json:"scenario"`
		Catalog  web.Catalog     `json:"catalog"`
	}
	script := findAll(doc, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "playground-data" })
	if len(script) != 1 {
		t.Fatal("no playground-data script")
	}
	if err := json.Unmarshal([]byte(text(script[0])), &data); err != nil {
		t.Fatalf("playground-data: %v", err)
	}
	if data.Preset != "nightly-total" || data.Scenario.Title != p.Title || len(data.Catalog.Faults) == 0 {
		t.Errorf("playground-data = %+v", data)
	}
	// The question and the outcome are read from the markup, not sent twice.
	if data.Scenario.Question != "" || data.Scenario.Watch != "" {
		t.Errorf("playground-data repeats the question or the outcome: %+v", data.Scenario)
	}
}

func TestPlaygroundBadQueryIs400WithTheField(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	base, err := engine.LoadPreset("baseline")
	if err != nil {
		t.Fatal(err)
	}
	shared := "s=" + mustShare(t, base.Scenario)
	for _, tc := range []struct{ query, want string }{
		// Whole, not cut to the bound on a message's length in the middle
		// of a list of every preset's name.
		{"preset=nope", fmt.Sprintf(`preset: "nope" is not one of the %d presets: pick one from the Scenario list below`, len(engine.PresetNames()))},
		{"s=%21%21", "s: is not a scenario link"},
		{"s=" + mustShare(t, engine.Scenario{Clients: []engine.Client{{Name: "a", Steps: []engine.Step{{Do: "work", For: engine.Ms(-5)}}}}}), "clients[0].steps[0].for: must be positive"},
		{"s=" + strings.Repeat("A", 100000), "s: the shared scenario is 100000 characters"},
		{"speed=fast", "speed: must be a number"},
		// What goes with a share link only, or cannot go with one, is
		// refused by name rather than dropped.
		{shared + "&from=nope", `from: is not a preset ("nope"), so what the link changed cannot be said: the link's scenario is shown as it is`},
		{shared + "&preset=paused-holder", "preset: cannot go with a share link (s)"},
		{shared + "&run=yes", `run: must be 1 (start the shared scenario when the page opens) or left out, not "yes"`},
		{"preset=paused-holder&run=1", "run: goes with a share link (s) only"},
		{"from=paused-holder", "from: goes with a share link (s) only"},
	} {
		status, body := get(t, ts.URL+"/playground?"+tc.query)
		if status != http.StatusBadRequest {
			t.Errorf("%.40s: status %d, want 400", tc.query, status)
			continue
		}
		if got := text(oneByTestID(t, parseHTML(t, body), "page-error")); !strings.Contains(got, tc.want) {
			t.Errorf("%.40s: error %q, want it to contain %q", tc.query, got, tc.want)
		}
	}
}

func TestShareLinkRestoresTheScenario(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	p, _ := engine.LoadPreset("delayed-write")
	p.Scenario.Fencing = false
	status, body := get(t, ts.URL+"/playground?s="+mustShare(t, p.Scenario)+"&speed=0&run=1")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	doc := parseHTML(t, body)
	script := findAll(doc, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "playground-data" })
	var data struct {
		Preset   string          `json:"preset"`
		Scenario engine.Scenario `json:"scenario"`
		Speed    float64         `json:"speed"`
		AutoRun  bool            `json:"autorun"`
	}
	if err := json.Unmarshal([]byte(text(script[0])), &data); err != nil {
		t.Fatal(err)
	}
	// The script takes the question and the outcome from the markup.
	data.Scenario.Question = text(oneByTestID(t, doc, "question"))
	data.Scenario.Watch = text(oneByTestID(t, doc, "watch"))
	want, _ := json.Marshal(p.Scenario)
	got, _ := json.Marshal(data.Scenario)
	if string(got) != string(want) || data.Preset != "" || data.Speed != 0 || !data.AutoRun {
		t.Errorf("restored %s preset=%q speed=%g autorun=%v; want %s, speed 0, autorun", got, data.Preset, data.Speed, data.AutoRun, want)
	}
}

func mustShare(t *testing.T, sc engine.Scenario) string {
	t.Helper()
	s, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAPIPresets(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, body := get(t, ts.URL+"/api/presets")
	var presets []engine.Preset
	if err := json.Unmarshal([]byte(body), &presets); status != 200 || err != nil {
		t.Fatalf("status %d, %v", status, err)
	}
	if len(presets) != len(engine.PresetNames()) || presets[0].Name != "baseline" || presets[0].Watch == "" {
		t.Errorf("presets: %d, first %+v", len(presets), presets[0].Name)
	}
}

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func TestAPIRunReturnsTheContractTimeline(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	data, err := os.ReadFile("../engine/presets/paused-holder.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := engine.DecodeScenario(data)
	sc.Fencing = false
	want := mustRun(t, sc)
	body, _ := json.Marshal(sc)
	status, out := post(t, ts.URL+"/api/run", string(body))
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, out)
	}
	var got struct {
		Events  []engine.Event `json:"events"`
		Summary engine.Summary `json:"summary"`
		Verdict string         `json:"verdict"`
		Texts   []string       `json:"texts"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got.Events)
	wj, _ := json.Marshal(want.Events)
	if string(gj) != string(wj) || got.Summary != want.Summary {
		t.Errorf("API timeline differs from engine.Execute")
	}
	if !strings.Contains(got.Verdict, "stale write accepted") || len(got.Texts) != len(got.Events) {
		t.Errorf("verdict %q, %d texts for %d events", got.Verdict, len(got.Texts), len(got.Events))
	}
	if !strings.Contains(string(out), "fence <= ?") && !strings.Contains(string(out), "WHERE key = ?") {
		t.Errorf("SQL is escaped or missing: %.200s", out)
	}
}

func TestAPIRunBadInputIs4xxNamingTheField(t *testing.T) {
	ts, _ := startServer(t, web.Config{MaxBodyBytes: 2048})
	for _, tc := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"negative duration", `{"clients":[{"name":"a","steps":[{"do":"acquire"},{"do":"work","for":"-1s"}]}]}`, 400, "clients[0].steps[1].for"},
		{"unknown field", `{"clients":[],"colour":"red"}`, 400, "colour"},
		{"not JSON", `{"clients":`, 400, "scenario"},
		{"empty", ``, 400, "scenario"},
		{"wrong type", `{"seed":"one"}`, 400, "seed"},
		{"too large", `{"title":"` + strings.Repeat("x", 4000) + `"}`, 413, "body"},
		{"backend not available", `{"lock":{"backend":"nope"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, 400, "lock.backend"},
	} {
		status, out := post(t, ts.URL+"/api/run", tc.body)
		var e struct{ Error, Field string }
		if err := json.Unmarshal(out, &e); err != nil {
			t.Errorf("%s: body %q is not JSON: %v", tc.name, out, err)
			continue
		}
		if status != tc.status || e.Field != tc.field || !strings.HasPrefix(e.Error, tc.field+": ") {
			t.Errorf("%s: %d %+v, want %d naming %q", tc.name, status, e, tc.status, tc.field)
		}
	}
}

func TestHealthzAndStatic(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, body := get(t, ts.URL+"/healthz")
	if status != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("healthz: %d %s", status, body)
	}
	// The page links its assets with a version; those are cached for good.
	_, page := get(t, ts.URL+"/playground")
	scripts := findAll(parseHTML(t, page), func(n *html.Node) bool { _, ok := attr(n, "src"); return n.Data == "script" && ok })
	src, _ := attr(scripts[0], "src")
	res, err := http.Get(ts.URL + src)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "javascript") || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("%s: %d %q %q", src, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	for _, p := range []string{"/static/x/js/nope.js", "/static/x/../static.go", "/nope"} {
		if status, _ := get(t, ts.URL+p); status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, status)
		}
	}
}

func TestPlaygroundSpeedSliderKeepsASharedSpeed(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	for q, want := range map[string][2]string{
		"speed=3":   {"0.48", "3 s per second"},
		"speed=0":   {"3.2", "as fast as possible"},
		"speed=0.1": {"-1", "0.1 s per second"},
		"":          {"0.7", "5 s per second"},
	} {
		_, body := get(t, ts.URL+"/playground?preset=paused-holder&"+q)
		doc := parseHTML(t, body)
		v, _ := attr(oneByTestID(t, doc, "speed"), "value")
		if out := text(oneByTestID(t, doc, "speed-out")); v != want[0] || out != want[1] {
			t.Errorf("%q: slider at %s saying %q, want %s saying %q", q, v, out, want[0], want[1])
		}
	}
}
