package lessons_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/engine"
)

// find returns the elements under n with tag (any tag if "") whose
// attribute key has value (any value if "").
func find(n *html.Node, tag, key, value string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) {
			if key == "" {
				out = append(out, n)
			} else if v, ok := attr(n, key); ok && (value == "" || v == value) {
				out = append(out, n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

func TestLessonsCoverTheTopicsInOrder(t *testing.T) {
	c := mustCatalog(t)
	ls := c.Lessons()
	if len(ls) != 10 {
		t.Fatalf("%d lessons, want one per topic (10)", len(ls))
	}
	for i := 1; i < len(ls); i++ {
		if ls[i-1].Order >= ls[i].Order {
			t.Errorf("lessons out of order: %s (%d) before %s (%d)", ls[i-1].Slug, ls[i-1].Order, ls[i].Slug, ls[i].Order)
		}
	}
	if ls[0].Slug != "why-a-lock" || ls[3].Slug != "fencing-tokens" || ls[9].Slug != "interview" {
		t.Errorf("unexpected order: %s, %s, %s", ls[0].Slug, ls[3].Slug, ls[9].Slug)
	}
	seen := map[string]bool{}
	for _, ex := range c.Exercises() {
		seen[ex.ID] = true
	}
	for _, id := range []string{"outlive-lease", "stale-token-write", "crash-wait", "failover-grants", "lock-writes-per-second",
		"nightly-total-predict", "sms-twice", "four-failures", "long-job-config", "make-stale-write-land", "renew-faster", "duplicate-token-backend"} {
		if !seen[id] {
			t.Errorf("required exercise %q is missing", id)
		}
	}
}

func TestLessonPagesRender(t *testing.T) {
	c := mustCatalog(t)
	for _, l := range c.Lessons() {
		page, err := c.PageHTML(l, 0)
		if err != nil {
			t.Fatalf("%s: %v", l.Slug, err)
		}
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatalf("%s: %v", l.Slug, err)
		}
		if h1 := find(doc, "h1", "", ""); len(h1) != 1 || text(h1[0]) != l.Title {
			t.Errorf("%s: want one h1 with the title", l.Slug)
		}
		q := find(doc, "div", "data-testid", "lesson-question")
		if len(q) != 1 || !strings.HasSuffix(text(q[0]), "?") {
			t.Errorf("%s: the page does not open with its question", l.Slug)
		}
		var h2 []string
		for _, h := range find(doc, "h2", "id", "") {
			h2 = append(h2, text(h))
		}
		if len(h2) < 2 {
			t.Errorf("%s: only %d sections with ids (%q)", l.Slug, len(h2), h2)
		}

		figs := find(doc, "figure", "data-testid", "playground")
		if len(figs) != len(l.Playgrounds) {
			t.Errorf("%s: %d playground figures, want %d", l.Slug, len(figs), len(l.Playgrounds))
		}
		for _, f := range figs {
			preset, _ := attr(f, "data-preset")
			if !slices.Contains(engine.PresetNames(), preset) || !slices.Contains(l.Presets, preset) {
				t.Errorf("%s: playground preset %q is not an engine preset listed by the lesson", l.Slug, preset)
			}
			raw, _ := attr(f, "data-controls")
			var controls []string
			if err := json.Unmarshal([]byte(raw), &controls); err != nil {
				t.Errorf("%s: data-controls %q is not a JSON list: %v", l.Slug, raw, err)
			}
		}
		if strings.Contains(page, "```playground") || strings.Contains(page, "language-playground") {
			t.Errorf("%s: a playground marker was rendered as code", l.Slug)
		}

		forms := find(doc, "form", "data-testid", "exercise")
		var ids []string
		for _, f := range forms {
			id, _ := attr(f, "data-exercise")
			ids = append(ids, id)
			if action, _ := attr(f, "action"); action != "/api/exercises/"+id+"/check" {
				t.Errorf("%s: form %s posts to %q", l.Slug, id, action)
			}
			if len(find(f, "button", "type", "submit")) != 1 || len(find(f, "", "name", "answer")) == 0 {
				t.Errorf("%s: form %s has no answer field or no submit button", l.Slug, id)
			}
			if len(find(f, "output", "aria-live", "polite")) != 1 {
				t.Errorf("%s: form %s has no live feedback region", l.Slug, id)
			}
		}
		if !slices.Equal(ids, l.ExerciseIDs) {
			t.Errorf("%s: exercise forms %q, want %q", l.Slug, ids, l.ExerciseIDs)
		}
	}
}

func TestExerciseFormsFitTheirKind(t *testing.T) {
	c := mustCatalog(t)
	form := func(id string) *html.Node {
		ex, err := c.Exercise(id)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ex.FormHTML(0)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	if boxes := find(form("four-failures"), "input", "type", "checkbox"); len(boxes) != 7 {
		t.Errorf("four-failures: %d checkboxes, want 7", len(boxes))
	}
	var backendPaths []string
	for _, s := range find(form("duplicate-token-backend"), "input", "data-testid", "setting") {
		p, _ := attr(s, "data-path")
		backendPaths = append(backendPaths, p)
	}
	if !slices.Equal(backendPaths, []string{"lock.backend", "lock.nodes", "lock.replication_lag"}) {
		t.Errorf("duplicate-token-backend settings %q", backendPaths)
	}
	settings := find(form("long-job-config"), "input", "data-testid", "setting")
	var paths []string
	for _, s := range settings {
		p, _ := attr(s, "data-path")
		paths = append(paths, p)
	}
	if !slices.Equal(paths, []string{"lock.lease", "clients[client-1].renew_every"}) {
		t.Errorf("long-job-config settings %q", paths)
	}
	if v, _ := attr(settings[0], "value"); v != "30s" {
		t.Errorf("the lease field starts at %q, want 30s", v)
	}
	if len(find(form("sms-twice"), "textarea", "name", "answer")) != 1 {
		t.Error("sms-twice has no text area")
	}
	p := find(form("outlive-lease"), "div", "class", "exercise-prompt")
	if len(p) != 1 || !strings.Contains(text(p[0]), "5,000 runs") {
		t.Error("the outlive-lease prompt does not show the notes' numbers")
	}
}

func TestPlaygroundMarkersAreParsed(t *testing.T) {
	c := mustCatalog(t)
	l, err := c.Lesson("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Playgrounds) != 7 {
		t.Fatalf("%d playgrounds, want 7", len(l.Playgrounds))
	}
	pg := l.Playgrounds[0]
	if pg.Preset != "paused-holder" || !slices.Equal(pg.Controls, []string{"fencing", "faults[0].for"}) || pg.Set["fencing"] != "false" || pg.ID != "playground-1" {
		t.Errorf("first playground = %+v", pg)
	}
	if _, err := c.Lesson("nope"); err == nil {
		t.Error("an unknown lesson slug was found")
	}
}
