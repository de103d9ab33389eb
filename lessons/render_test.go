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
	if len(ls) != 11 {
		t.Fatalf("%d lessons, want one per topic (10) and the real lock systems after topic 5", len(ls))
	}
	for i := 1; i < len(ls); i++ {
		if ls[i-1].Order >= ls[i].Order {
			t.Errorf("lessons out of order: %s (%d) before %s (%d)", ls[i-1].Slug, ls[i-1].Order, ls[i].Slug, ls[i].Order)
		}
	}
	if ls[0].Slug != "why-a-lock" || ls[3].Slug != "fencing-tokens" || ls[10].Slug != "interview" {
		t.Errorf("unexpected order: %s, %s, %s", ls[0].Slug, ls[3].Slug, ls[10].Slug)
	}
	// The real systems follow the lesson that introduces consensus and
	// ready-made tokens, and come before Redlock, which they are set against.
	if ls[4].Slug != "where-the-lock-lives" || ls[5].Slug != "real-lock-systems" || ls[6].Slug != "redlock" {
		t.Errorf("real lock systems misplaced: %s, %s, %s", ls[4].Slug, ls[5].Slug, ls[6].Slug)
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
		page := l.HTML
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatalf("%s: %v", l.Slug, err)
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
			if _, locked := attr(f, "data-predict"); locked && preset == "" {
				continue // waits for a prediction: no name to give it away
			}
			if !slices.Contains(engine.PresetNames(), preset) || !slices.Contains(l.Presets, preset) {
				t.Errorf("%s: playground preset %q is not an engine preset listed by the lesson", l.Slug, preset)
			}
			raw, _ := attr(f, "data-controls")
			var controls []string
			if err := json.Unmarshal([]byte(raw), &controls); err != nil {
				t.Errorf("%s: data-controls %q is not a JSON list: %v", l.Slug, raw, err)
			}
		}
		for _, marker := range []string{"```playground", "language-playground", "```exercise", "language-exercise", "lesson-exercise:"} {
			if strings.Contains(page, marker) {
				t.Errorf("%s: a marker was rendered as it is: %s", l.Slug, marker)
			}
		}
		var joined strings.Builder
		for _, seg := range l.Segments {
			joined.WriteString(seg.HTML)
		}
		if joined.String() != page {
			t.Errorf("%s: the segments do not add up to the page", l.Slug)
		}
	}
}

func TestPlaygroundMarkersAreParsed(t *testing.T) {
	c := mustCatalog(t)
	l, err := c.Lesson("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Playgrounds) != 8 {
		t.Fatalf("%d playgrounds, want 8", len(l.Playgrounds))
	}
	pg := l.Playgrounds[1]
	if pg.Preset != "paused-holder" || !slices.Equal(pg.Controls, []string{"fencing", "faults[0].for"}) || pg.Set["fencing"] != "false" || pg.ID != "playground-2" {
		t.Errorf("second playground = %+v", pg)
	}
	if first := l.Playgrounds[0]; first.Preset != "check-then-write" || first.Predict != "check-then-write-predict" {
		t.Errorf("first playground = %+v, want check-then-write waiting for its prediction", first)
	}
	if _, err := c.Lesson("nope"); err == nil {
		t.Error("an unknown lesson slug was found")
	}
}
