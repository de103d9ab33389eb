package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

func catalog(t *testing.T) *lessons.Catalog {
	t.Helper()
	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// firstPrediction returns the catalog's first prediction exercise.
func firstPrediction(t *testing.T) *lessons.Exercise {
	t.Helper()
	for _, ex := range catalog(t).Exercises() {
		if ex.Kind == lessons.KindPredict {
			return ex
		}
	}
	t.Fatal("the catalog has no prediction")
	return nil
}

func TestLessonIndexListsLessonsInOrder(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, body := get(t, ts.URL+"/lessons")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	doc := parseHTML(t, body)
	entries := byTestID(doc, "lesson-entry")
	want := catalog(t).Lessons()
	if len(entries) != len(want) {
		t.Fatalf("%d lessons listed, want %d", len(entries), len(want))
	}
	for i, l := range want {
		if got, _ := attr(entries[i], "data-slug"); got != l.Slug {
			t.Errorf("entry %d is %q, want %q (teaching order)", i, got, l.Slug)
		}
		link := byTestID(entries[i], "lesson-link")
		if len(link) != 1 {
			t.Fatalf("entry %s: %d links", l.Slug, len(link))
		}
		if href, _ := attr(link[0], "href"); href != "/lessons/"+l.Slug {
			t.Errorf("entry %s links to %q", l.Slug, href)
		}
		if text(link[0]) != l.Title {
			t.Errorf("entry %s: title %q, want %q", l.Slug, text(link[0]), l.Title)
		}
		if !strings.Contains(text(entries[i]), l.Question) {
			t.Errorf("entry %s does not show its question", l.Slug)
		}
		var ids []string
		for _, e := range byTestID(entries[i], "exercise-entry") {
			id, _ := attr(e, "data-exercise")
			ids = append(ids, id)
		}
		if strings.Join(ids, ",") != strings.Join(l.ExerciseIDs, ",") {
			t.Errorf("entry %s lists exercises %v, want %v", l.Slug, ids, l.ExerciseIDs)
		}
		wantCount := fmt.Sprintf("%d exercises", len(l.ExerciseIDs))
		if len(l.ExerciseIDs) == 1 {
			wantCount = "1 exercise"
		}
		if count := byTestID(entries[i], "lesson-count"); len(count) != 1 || text(count[0]) != wantCount {
			t.Errorf("entry %s: %d counts (%q), want one reading %q", l.Slug, len(count), textsOf(count), wantCount)
		}
	}
	oneByTestID(t, doc, "progress-reset")
	if n := len(byTestID(parseHTML(t, mustGet(t, ts.URL+"/")), "home-lesson")); n != len(want) {
		t.Errorf("home page lists %d lessons, want %d", n, len(want))
	}
}

func mustGet(t *testing.T, url string) string {
	t.Helper()
	status, body := get(t, url)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d", url, status)
	}
	return body
}

func TestLessonPageRendersBodyPlaygroundsAndExercises(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	cat := catalog(t)
	for i, l := range cat.Lessons() {
		t.Run(l.Slug, func(t *testing.T) {
			doc := parseHTML(t, mustGet(t, ts.URL+"/lessons/"+l.Slug))
			if got := text(oneByTestID(t, doc, "lesson-title")); got != l.Title {
				t.Errorf("title %q", got)
			}
			// The Markdown typographer curls apostrophes.
			if got := strings.ReplaceAll(text(oneByTestID(t, doc, "lesson-question")), "’", "'"); got != strings.Join(strings.Fields(l.Question), " ") {
				t.Errorf("question %q, want %q", got, l.Question)
			}
			// Every heading of the lesson, with its anchor id.
			body := oneByTestID(t, doc, "lesson-body")
			for _, h := range l.Headings {
				hs := findAll(body, func(n *html.Node) bool {
					id, _ := attr(n, "id")
					return n.Data == "h"+string(rune('0'+h.Level)) && id == h.ID
				})
				if len(hs) != 1 {
					t.Errorf("heading %q (#%s) not rendered", h.Text, h.ID)
				}
			}
			toc := oneByTestID(t, doc, "toc")
			for _, h := range l.Headings {
				if h.Level != 2 {
					continue
				}
				if len(findAll(toc, func(n *html.Node) bool { href, _ := attr(n, "href"); return href == "#"+h.ID })) != 1 {
					t.Errorf("contents do not link to #%s", h.ID)
				}
			}
			// The playground figures, in order, with their presets.
			figs := byTestID(body, "playground")
			if len(figs) != len(l.Playgrounds) {
				t.Fatalf("%d playground figures, want %d", len(figs), len(l.Playgrounds))
			}
			for j, pg := range l.Playgrounds {
				// One that waits for a prediction names no preset: a
				// name can state the outcome.
				want := pg.Preset
				if pg.Predict != "" {
					want = ""
				}
				if got, _ := attr(figs[j], "data-preset"); got != want {
					t.Errorf("figure %d preset %q, want %q", j, got, want)
				}
				// Without JavaScript the figure still says how to run it;
				// one that waits for a prediction says how to answer it
				// first, and nothing more.
				command := pg.Command()
				if pg.Predict != "" {
					command = "playground check --exercise " + pg.Predict
				}
				if !strings.Contains(text(figs[j]), command) {
					t.Errorf("figure %d has no fallback command %q", j, command)
				}
			}
			// One form per exercise, each with its check button and live
			// feedback region: first those placed in the text, in the
			// text's order, then the others in the lesson's order.
			forms := byTestID(doc, "exercise")
			if len(forms) != len(l.ExerciseIDs) {
				t.Fatalf("%d exercise forms, want %d", len(forms), len(l.ExerciseIDs))
			}
			order := append([]string(nil), l.Inline...)
			for _, id := range l.ExerciseIDs {
				if !slices.Contains(l.Inline, id) {
					order = append(order, id)
				}
			}
			for j, id := range order {
				if got, _ := attr(forms[j], "data-exercise"); got != id {
					t.Errorf("form %d is %q, want %q", j, got, id)
				}
				if v, _ := attr(forms[j], "data-variant"); v != "0" {
					t.Errorf("form %s variant %q, want 0 outside a class", id, v)
				}
				fb := byTestID(forms[j], "feedback")
				if len(fb) != 1 {
					t.Fatalf("form %s: %d feedback regions", id, len(fb))
				}
				if v, _ := attr(fb[0], "aria-live"); v != "polite" {
					t.Errorf("form %s feedback aria-live %q", id, v)
				}
			}
			// Previous and next.
			if i > 0 {
				if href, _ := attr(oneByTestID(t, doc, "prev"), "href"); href != "/lessons/"+cat.Lessons()[i-1].Slug {
					t.Errorf("prev links to %q", href)
				}
			} else if len(byTestID(doc, "prev")) != 0 {
				t.Error("the first lesson has a previous link")
			}
			if i+1 < len(cat.Lessons()) {
				if href, _ := attr(oneByTestID(t, doc, "next"), "href"); href != "/lessons/"+cat.Lessons()[i+1].Slug {
					t.Errorf("next links to %q", href)
				}
			}
		})
	}
}

func TestUnknownLessonIs404Page(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	status, body := get(t, ts.URL+"/lessons/no-such-lesson")
	if status != http.StatusNotFound {
		t.Fatalf("status %d, want 404", status)
	}
	msg := text(oneByTestID(t, parseHTML(t, body), "error-message"))
	if !strings.Contains(msg, `"no-such-lesson"`) {
		t.Errorf("message %q does not name the lesson", msg)
	}
}

func TestLessonAndExerciseLists(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	var ls []struct {
		Slug      string   `json:"slug"`
		URL       string   `json:"url"`
		Exercises []string `json:"exercises"`
	}
	if err := json.Unmarshal([]byte(mustGet(t, ts.URL+"/api/lessons")), &ls); err != nil {
		t.Fatal(err)
	}
	cat := catalog(t)
	if len(ls) != len(cat.Lessons()) || ls[0].Slug != cat.Lessons()[0].Slug || ls[0].URL != "/lessons/"+ls[0].Slug {
		t.Errorf("GET /api/lessons: %+v", ls)
	}
	var xs []struct{ ID, Kind, Lesson, Check string }
	if err := json.Unmarshal([]byte(mustGet(t, ts.URL+"/api/exercises")), &xs); err != nil {
		t.Fatal(err)
	}
	if len(xs) != len(cat.Exercises()) {
		t.Fatalf("%d exercises listed, want %d", len(xs), len(cat.Exercises()))
	}
	for _, x := range xs {
		if x.ID == "outlive-lease" && (x.Kind != "number" || x.Check != "/api/exercises/outlive-lease/check") {
			t.Errorf("outlive-lease listed as %+v", x)
		}
	}
}

// check posts an answer and returns the status and the decoded body.
func check(t *testing.T, url, id, body string, cookies ...*http.Cookie) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"/api/exercises/"+id+"/check", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("check %s: not JSON (%d): %s", id, res.StatusCode, data)
	}
	return res.StatusCode, out
}

func TestCheckAPI(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	cases := []struct {
		name, id, body string
		status         int
		want           map[string]any
		feedback       string // part of the feedback or error
	}{
		{"right", "outlive-lease", `{"answer":"50","variant":0}`, 200, map[string]any{"correct": true, "format_error": ""}, "50"},
		{"right with words", "outlive-lease", `{"answer":"50 runs"}`, 200, map[string]any{"correct": true}, ""},
		{"the 99% mistake", "outlive-lease", `{"answer":"4,950","variant":0,"tries":0}`, 200, map[string]any{"correct": false, "format_error": ""}, "finish in time (99%)"},
		{"unreadable", "outlive-lease", `{"answer":"forty","variant":0}`, 200, map[string]any{"correct": false, "graded": false}, `"forty" is a number in words`},
		{"answer too long", "outlive-lease", `{"answer":"` + strings.Repeat("5", lessons.MaxAnswerLen+1) + `"}`, 400, map[string]any{"field": "answer"}, "at most 2000"},
		{"request too large", "outlive-lease", `{"answer":"` + strings.Repeat("5", web.DefaultMaxBodyBytes) + `"}`, 413, map[string]any{"field": "body"}, "larger than the limit of 73728 bytes"},
		{"long answer within --max-body-bytes", "outlive-lease", `{"answer":"` + strings.Repeat("5", 20000) + `"}`, 400, map[string]any{"field": "answer"}, "at most 2000"},
		{"bad JSON", "outlive-lease", `{"answer":50}`, 400, map[string]any{"field": "answer"}, "answer: must be a string"},
		{"bad variant", "outlive-lease", `{"answer":"50","variant":-1}`, 400, map[string]any{"field": "variant"}, "variant: must be a whole number between 0 and 1000000, not -1"},
		{"variant too large to read", "outlive-lease", `{"answer":"50","variant":1e400}`, 400, map[string]any{"field": "variant"}, "variant: must be a whole number between 0 and 1000000, not 1e400"},
		{"variant a string", "outlive-lease", `{"answer":"50","variant":"7"}`, 400, map[string]any{"field": "variant"}, "variant: must be a whole number between 0 and 1000000, not a string"},
		{"unknown exercise", "no-such-exercise", `{"answer":"50"}`, 404, nil, `"no-such-exercise"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, res := check(t, ts.URL, c.id, c.body)
			if status != c.status {
				t.Fatalf("status %d, want %d: %v", status, c.status, res)
			}
			for k, v := range c.want {
				if res[k] != v {
					t.Errorf("%s = %v, want %v", k, res[k], v)
				}
			}
			msg, _ := res["feedback"].(string)
			if fe, _ := res["format_error"].(string); fe != "" {
				msg = fe // an unreadable answer's message is given once, here
			}
			if status != 200 {
				msg, _ = res["error"].(string)
			}
			if !strings.Contains(msg, c.feedback) {
				t.Errorf("message %q does not contain %q", msg, c.feedback)
			}
		})
	}
	// The server's own body limit is named too.
	small, _ := startServer(t, web.Config{MaxBodyBytes: 1024})
	status, res := check(t, small.URL, "outlive-lease", `{"answer":"`+strings.Repeat("5", 1500)+`"}`)
	if msg, _ := res["error"].(string); status != http.StatusRequestEntityTooLarge || res["field"] != "body" || !strings.Contains(msg, "limit of 1024 bytes") {
		t.Errorf("over MaxBodyBytes: %d %v", status, res)
	}
	// A format error gives no hints (it costs no try); a wrong answer on the
	// second try gets the second hint.
	_, res = check(t, ts.URL, "outlive-lease", `{"answer":"forty"}`)
	if res["hints"] != nil || res["format_error"] == "" {
		t.Errorf("unreadable answer: %v", res)
	}
	// The tries the body claims count for nothing: the server counts them
	// itself, in the practice cookie.
	_, res = check(t, ts.URL, "outlive-lease", `{"answer":"7","tries":1}`)
	if h, _ := res["hints"].([]any); len(h) != 1 {
		t.Errorf("a first wrong try claiming one before: hints %v, want 1", res["hints"])
	}
	learner := newPerson(t, ts.URL)
	learner.postJSON("/api/exercises/outlive-lease/check", `{"answer":"7"}`)
	var second map[string]any
	learner.postJSON("/api/exercises/outlive-lease/check", `{"answer":"7"}`).decode(t, &second)
	if h, _ := second["hints"].([]any); len(h) != 2 {
		t.Errorf("second wrong try: hints %v, want 2", second["hints"])
	}
}

// TestCheckAPIErrorsNameTheField holds the check to the other APIs'
// contract: {"error", "field"}, the error starting with the field, in
// words rather than Go's type names.
func TestCheckAPIErrorsNameTheField(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	for _, tc := range []struct{ body, field, msg string }{
		{`{"answer":5}`, "answer", "answer: must be a string"},
		{`{"answer":"50","variant":"x"}`, "variant", "variant: must be a whole number"},
		{`{"answer":"50","variant":1.5}`, "variant", "variant: must be a whole number"},
		{`{"answer":"50","tries":"two"}`, "tries", "tries: must be a whole number"},
		{`{"answer":"50","tries":-1}`, "tries", "tries: must be between 0 and 1000, not -1"},
		{`{"answer":"50","colour":"red"}`, "colour", "colour: is not a field of this request, which takes answer, variant or tries"},
		{`not json`, "body", "body: is not valid JSON"},
		{`["50"]`, "body", "body: must be a JSON object"},
		// An empty body is the empty object, as for every JSON body: an
		// empty answer, which the checker says is empty.
	} {
		status, res := check(t, ts.URL, "outlive-lease", tc.body)
		msg, _ := res["error"].(string)
		if status != http.StatusBadRequest || res["field"] != tc.field || !strings.HasPrefix(msg, tc.msg) {
			t.Errorf("%s: %d %v, want 400 with field %q and %q", tc.body, status, res, tc.field, tc.msg)
		}
	}
}

func TestCheckScenarioRunsTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine")
	}
	ts, srv := startServer(t, web.Config{})
	status, res := check(t, ts.URL, "long-job-config", `{"answer":"{\"lock.lease\":\"30s\"}"}`)
	if status != 200 || res["correct"] != false {
		t.Fatalf("no renewal: %d %v", status, res)
	}
	tl, _ := res["timeline"].(map[string]any)
	if ev, _ := tl["events"].([]any); len(ev) == 0 || tl["name"] != "healthy" {
		t.Errorf("no failing timeline: %v", tl["name"])
	}
	status, res = check(t, ts.URL, "long-job-config", `{"answer":"{\"lock.lease\":\"30s\",\"clients[client-1].renew_every\":\"10s\"}"}`)
	if status != 200 || res["correct"] != true {
		t.Fatalf("the solution: %d %v", status, res["feedback"])
	}
	if runs, _ := res["runs"].([]any); len(runs) != 4 {
		t.Errorf("%d runs reported, want 4", len(runs))
	}
	if n := srv.LiveRuns(); n != 0 {
		t.Errorf("%d live-run slots still held", n)
	}
}

// textsOf is the text of each node, joined.
func textsOf(nodes []*html.Node) string {
	var out []string
	for _, n := range nodes {
		out = append(out, text(n))
	}
	return strings.Join(out, " | ")
}
