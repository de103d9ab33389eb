package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestALockedPlaygroundsDataTellsNothing: what the page source holds for
// a playground that waits for a prediction tells nothing of the outcome.
// The preset's title ("A paused holder writes late") and its watch text
// ("the storage accepts the stale write and client-2's update is lost")
// are not in the page's data, in the share link it carries, or in the
// prediction's JSON; nor is the preset's name, which can state the
// outcome as plainly ("restart-forgets").
func TestALockedPlaygroundsDataTellsNothing(t *testing.T) {
	cat := catalog(t)
	ts, _ := startServer(t, web.Config{})
	checked := 0
	for _, l := range cat.Lessons() {
		doc := parseHTML(t, mustGet(t, ts.URL+"/lessons/"+l.Slug))
		var data struct {
			Playgrounds map[string]struct {
				Preset   string          `json:"preset"`
				Scenario json.RawMessage `json:"scenario"`
				Share    string          `json:"share"`
				Predict  string          `json:"predict"`
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
			p, err := engine.LoadPreset(pg.Preset)
			if err != nil {
				t.Fatal(err)
			}
			v := data.Playgrounds[pg.ID]
			u, err := url.Parse(v.Share)
			if err != nil {
				t.Fatal(err)
			}
			shared, err := web.DecodeShare(u.Query().Get("s"))
			if err != nil {
				t.Fatalf("%s %s: share link %q: %v", l.Slug, pg.ID, v.Share, err)
			}
			link, _ := json.Marshal(shared)
			for what, blob := range map[string]string{"scenario": string(v.Scenario), "share link": string(link)} {
				for _, s := range []string{p.Title, p.Watch} {
					if s != "" && strings.Contains(blob, s) {
						t.Errorf("%s %s: before %s the page's %s holds %.50q", l.Slug, pg.ID, pg.Predict, what, s)
					}
				}
			}
			if v.Preset != "" {
				t.Errorf("%s %s: before %s the page's data names the preset %s", l.Slug, pg.ID, pg.Predict, v.Preset)
			}
			for _, fig := range findAll(doc, func(n *xhtml.Node) bool { id, _ := attr(n, "id"); return id == pg.ID }) {
				if got, _ := attr(fig, "data-preset"); got != "" {
					t.Errorf("%s %s: the locked figure names its preset %s", l.Slug, pg.ID, got)
				}
			}
			var served struct {
				Preset string `json:"preset"`
			}
			if err := json.Unmarshal([]byte(mustGet(t, ts.URL+"/api/exercises/"+pg.Predict)), &served); err != nil {
				t.Fatal(err)
			}
			if served.Preset != "" {
				t.Errorf("%s: the prediction's JSON names its preset %s before it is answered", pg.Predict, served.Preset)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d locked playgrounds checked", checked)
	}
}
