package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"github.com/leaselab/playground/web"
)

// plainLower is text as a reader compares it: lower case, typographic
// apostrophes and spaces made plain.
func plainLower(s string) string {
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u00a0", " ").Replace(s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// TestNothingBeforeAPredictionGivesItAway: for every prediction of every
// lesson, the page text a learner can read before answering it (the
// header, the lesson's title and table of contents, the text above the
// question, the question's title and prompt, and the locked playground below it,
// with its no-script fallback) shows neither the title of the preset it
// runs ("A paused holder writes late") nor any phrase that states its
// outcome; and the page's data gives the locked playground no title for
// the script to show beside its Run button.
func TestNothingBeforeAPredictionGivesItAway(t *testing.T) {
	cat := catalog(t)
	ts, _ := startServer(t, web.Config{})
	checked := 0
	for _, l := range cat.Lessons() {
		body := mustGet(t, ts.URL+"/lessons/"+l.Slug)
		doc := parseHTML(t, body)
		var data struct {
			Playgrounds map[string]struct {
				Title   string `json:"title"`
				Predict string `json:"predict"`
			} `json:"playgrounds"`
		}
		for _, n := range findAll(doc, func(n *xhtml.Node) bool { id, _ := attr(n, "id"); return id == "lesson-data" }) {
			if err := json.Unmarshal([]byte(text(n)), &data); err != nil {
				t.Fatalf("%s: lesson-data: %v", l.Slug, err)
			}
		}
		for _, pg := range l.Playgrounds {
			if pg.Predict == "" {
				continue
			}
			checked++
			seen := plainLower(textBefore(t, doc, pg.Predict, pg.ID))
			if !strings.Contains(seen, plainLower(l.Title)) {
				t.Fatalf("%s: the text before %s does not even hold the lesson's title: %q", l.Slug, pg.Predict, seen)
			}
			giveaways := cat.Giveaways(pg.Predict)
			if len(giveaways) < 2 {
				t.Errorf("%s: %s lists no phrases that would give it away", l.Slug, pg.Predict)
			}
			for _, g := range giveaways {
				if strings.Contains(seen, plainLower(g)) {
					t.Errorf("%s: before the prediction %s the page shows %q", l.Slug, pg.Predict, g)
				}
			}
			if v := data.Playgrounds[pg.ID]; v.Predict != pg.Predict || v.Title != "" {
				t.Errorf("%s: the locked playground %s comes with the title %q for the script to show", l.Slug, pg.ID, v.Title)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d predictions checked", checked)
	}
}

// textBefore is the page's visible text, in document order, down to the
// form of the prediction exerciseID, followed by the text of the locked
// figure figID that waits for it.
func textBefore(t *testing.T, doc *xhtml.Node, exerciseID, figID string) string {
	t.Helper()
	var b strings.Builder
	done := false
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if done {
			return
		}
		if n.Type == xhtml.ElementNode {
			switch n.Data {
			case "script", "style", "template", "head":
				return
			}
			if id, _ := attr(n, "data-exercise"); id == exerciseID {
				if tid, _ := attr(n, "data-testid"); tid == "exercise" || tid == "exercise-box" {
					// Its title and question; its options name every
					// outcome on purpose.
					for _, h := range findAll(n, func(n *xhtml.Node) bool { return n.Data == "h3" || n.Data == "h2" }) {
						b.WriteString(" " + text(h))
					}
					for _, p := range byTestID(n, "exercise-prompt") {
						b.WriteString(" " + text(p))
					}
					done = true
					return
				}
			}
		}
		if n.Type == xhtml.TextNode {
			b.WriteString(" " + n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !done {
		t.Fatalf("no form for the prediction %s", exerciseID)
	}
	for _, fig := range findAll(doc, func(n *xhtml.Node) bool { id, _ := attr(n, "id"); return id == figID && n.Data == "figure" }) {
		b.WriteString(" " + text(fig))
		for _, a := range findAll(fig, func(n *xhtml.Node) bool { return n.Data == "a" }) {
			href, _ := attr(a, "href")
			b.WriteString(" " + href)
		}
	}
	return b.String()
}

// TestPushedPlaygroundsGiveNothingAway: the banner a learner sees for a
// playground their teacher pushed (their class page and /api/me, which
// the playground's banner shows) names no preset's title and none of the
// phrases that would answer a prediction of that preset, whether the
// teacher pushed the preset or a share link of it; a title the teacher
// wrote is kept.
func TestPushedPlaygroundsGiveNothingAway(t *testing.T) {
	cat := catalog(t)
	base := startClass(t, openSQLite(t))
	c := createClass(t, base, "Discussion")
	owner := teacher(t, base, c.TeacherKey)
	learner, _ := join(t, base, c.Code, "Ada")
	path := "/api/classes/" + c.Code + "/scenario"
	shown := func() string {
		var me struct {
			Class struct {
				Scenario struct{ Label string } `json:"scenario"`
			} `json:"class"`
		}
		learner.get("/api/me").decode(t, &me)
		page := parseHTML(t, learner.get("/class/me").body)
		return plainLower(me.Class.Scenario.Label + " " + text(oneByTestID(t, page, "pushed-scenario")))
	}
	gated := map[string][]string{} // preset: the giveaways of its predictions
	for _, l := range cat.Lessons() {
		for _, pg := range l.Playgrounds {
			if pg.Predict != "" {
				gated[pg.Preset] = append(gated[pg.Preset], cat.Giveaways(pg.Predict)...)
			}
		}
	}
	if len(gated["paused-holder"]) == 0 {
		t.Fatal("no prediction plays paused-holder")
	}
	for preset, giveaways := range gated {
		sc, err := engineLoad(preset)
		if err != nil {
			t.Fatal(err)
		}
		share, err := web.EncodeShare(sc)
		if err != nil {
			t.Fatal(err)
		}
		for how, body := range map[string]string{"preset": `{"preset":"` + preset + `"}`, "share link": `{"link":"/playground?s=` + share + `"}`} {
			wantStatus(t, owner.postJSON(path, body), http.StatusOK, how)
			got := shown()
			for _, g := range giveaways {
				if strings.Contains(got, plainLower(g)) {
					t.Errorf("%s pushed as a %s: the learner's banner shows %q: %q", preset, how, g, got)
				}
			}
		}
	}
	sc, _ := engineLoad("paused-holder")
	sc.Title = "Tuesday's question"
	doc, _ := json.Marshal(sc)
	wantStatus(t, owner.postJSON(path, `{"scenario":`+string(doc)+`}`), http.StatusOK, "a titled document")
	if got := shown(); !strings.Contains(got, "tuesday's question") {
		t.Errorf("the teacher's own title is not shown: %q", got)
	}
}
