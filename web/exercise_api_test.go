package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// served is GET /api/exercises/{id} as a client reads it.
type served struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Lesson     string `json:"lesson"`
	Variant    int    `json:"variant"`
	Prompt     string `json:"prompt"`
	PromptText string `json:"prompt_text"`
	Multiple   bool   `json:"multiple"`
	Options    []struct {
		Key, ID, Text string
	} `json:"options"`
	Fields []struct {
		Path, Label, Unit, Min, Max, Default, Range string
		Choices                                     []string
	} `json:"fields"`
	Hints   []string `json:"hints"`
	Tries   int      `json:"tries"`
	Earned  bool     `json:"earned"`
	InClass bool     `json:"in_class"`
	Review  *struct {
		Score   float64 `json:"score"`
		Comment string  `json:"comment"`
	} `json:"review"`
}

func getExercise(t *testing.T, p *person, id string, variant int) served {
	t.Helper()
	a := p.get(fmt.Sprintf("/api/exercises/%s?variant=%d", id, variant))
	wantStatus(t, a, http.StatusOK, "GET exercise "+id)
	var s served
	a.decode(t, &s)
	return s
}

// TestExercisesAreServedAsData: the exercise JSON has what a front end
// needs to ask the question, for the variant asked, and nothing that
// answers it.
func TestExercisesAreServedAsData(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	p := newPerson(t, ts.URL)
	for _, ex := range catalog(t).Exercises() {
		raw := p.get("/api/exercises/" + ex.ID + "?variant=5")
		wantStatus(t, raw, http.StatusOK, ex.ID)
		var fields map[string]any
		raw.decode(t, &fields)
		for _, k := range []string{"answer", "correct", "solution", "solution_html", "model_answer", "rubric", "expected", "solution_answer"} {
			if _, ok := fields[k]; ok {
				t.Errorf("%s is served with %q", ex.ID, k)
			}
		}
		md, html, _ := ex.Solution(5)
		if strings.Contains(raw.body, jsonFragment(md)) || strings.Contains(raw.body, jsonFragment(html)) {
			t.Errorf("%s: the served exercise holds its solution", ex.ID)
		}
		var s served
		raw.decode(t, &s)
		if s.ID != ex.ID || s.Lesson != ex.Lesson || s.Variant != 5 || !strings.HasPrefix(s.Prompt, "<") || s.Earned || s.Tries != 0 {
			t.Errorf("%s served as %+v", ex.ID, s)
		}
	}
	sc := getExercise(t, p, "long-job-config", 0)
	if len(sc.Fields) != 2 || sc.Fields[0].Path != "lock.lease" || sc.Fields[0].Unit != "duration" || sc.Fields[0].Range == "" || sc.Fields[0].Default != "30s" {
		t.Errorf("scenario fields %+v", sc.Fields)
	}
	for _, bad := range []string{"?variant=-1", "?variant=x", fmt.Sprintf("?variant=%d", lessons.MaxVariant+1)} {
		a := p.get("/api/exercises/outlive-lease" + bad)
		var e struct{ Error, Field string }
		a.decode(t, &e)
		if a.status != http.StatusBadRequest || e.Field != "variant" {
			t.Errorf("GET %s: %d %+v, want 400 naming variant", bad, a.status, e)
		}
	}
	// The value is quoted once, as sent.
	var e struct{ Error string }
	p.get("/api/exercises/outlive-lease?variant=1e400").decode(t, &e)
	if want := `variant: must be a whole number between 0 and 1000000, not "1e400"`; e.Error != want {
		t.Errorf("variant=1e400: %q, want %q", e.Error, want)
	}
	if a := p.get("/api/exercises/nope"); a.status != http.StatusNotFound {
		t.Errorf("an unknown exercise: %d", a.status)
	}
}

// jsonFragment is the first part of a long text as it appears in JSON.
func jsonFragment(s string) string {
	b, _ := json.Marshal(s)
	frag := strings.Trim(string(b), `"`)
	if len(frag) > 60 {
		frag = frag[:60]
	}
	return frag
}

// TestOptionsAreShuffledAcrossVariants: neighbours on other variants see
// the options in other orders, lettered a, b, c... as shown; each option
// keeps its served id and text; a check takes the letters shown on the
// learner's variant, or the ids a form sends, and reads the answer back
// in those ids. The options' file keys ("option-b"), which the right
// answers share from file to file, are not taken from a learner.
func TestOptionsAreShuffledAcrossVariants(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	p := newPerson(t, ts.URL)
	orders := map[string]bool{}
	text := map[string]string{}
	// The served ids say nothing of the keys: the right ones are worked
	// out from the catalog.
	ff, err := catalog(t).Exercise("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	right := map[string]bool{}
	var served []string
	for _, k := range []string{"a", "b", "c", "d"} {
		right[ff.PublicOptionID(k)] = true
		served = append(served, ff.PublicOptionID(k))
	}
	for v := range 10 {
		s := getExercise(t, p, "four-failures", v)
		var ids, letters []string
		for i, o := range s.Options {
			ids = append(ids, o.ID)
			if o.Key != string(rune('a'+i)) {
				t.Errorf("variant %d: option %d is lettered (%s)", v, i+1, o.Key)
			}
			if old, ok := text[o.ID]; ok && old != o.Text {
				t.Errorf("option %s reads %q on one variant and %q on another", o.ID, old, o.Text)
			}
			text[o.ID] = o.Text
			if right[o.ID] {
				letters = append(letters, o.Key)
			}
		}
		orders[strings.Join(ids, " ")] = true
		body, _ := json.Marshal(map[string]any{"answer": strings.Join(letters, ", "), "variant": v})
		if _, res := check(t, ts.URL, "four-failures", string(body)); res["correct"] != true || res["read"] != strings.Join(served, ", ") {
			t.Errorf("variant %d: the letters shown for the right options, %v: %v", v, letters, res)
		}
	}
	if len(orders) < 4 {
		t.Errorf("10 variants of four-failures show %d orders: %v", len(orders), orders)
	}
	if _, res := check(t, ts.URL, "four-failures", `{"answer":"`+strings.Join(served, ",")+`","variant":7}`); res["correct"] != true {
		t.Errorf("the served ids on a shuffled variant: %v", res)
	}
	if _, res := check(t, ts.URL, "four-failures", `{"answer":"option-a,option-b,option-c,option-d","variant":7}`); res["graded"] != false ||
		!strings.Contains(fmt.Sprint(res["format_error"]), `"option-a" is not one of the options`) {
		t.Errorf("the file keys on a shuffled variant: %v, want them not read, no try used", res)
	}
}

// TestSolutionsAreEarned: GET .../solution is 403 for an anonymous
// learner until their practice cookie records a right answer, three wrong
// tries or giving up, and only for the variant they earned it on. A
// cookie that was tampered with earns nothing.
func TestSolutionsAreEarned(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	solution := func(p *person, id string, variant int) int {
		t.Helper()
		return p.get(fmt.Sprintf("/api/exercises/%s/solution?variant=%d", id, variant)).status
	}
	wrong := newPerson(t, ts.URL)
	if got := solution(wrong, "outlive-lease", 0); got != http.StatusForbidden {
		t.Fatalf("before any try: %d, want 403", got)
	}
	for try := 1; try <= lessons.RevealAfter; try++ {
		var res map[string]any
		wrong.postJSON("/api/exercises/outlive-lease/check", `{"answer":"7","variant":0}`).decode(t, &res)
		earned := try == lessons.RevealAfter
		if res["revealed"] != earned || (res["solution"] != nil) != earned || (res["expected"] != nil) != earned {
			t.Errorf("wrong try %d: revealed %v, solution %v, expected %v", try, res["revealed"], res["solution"] != nil, res["expected"])
		}
		want := http.StatusForbidden
		if earned {
			want = http.StatusOK
		}
		if got := solution(wrong, "outlive-lease", 0); got != want {
			t.Errorf("after %d wrong tries: %d, want %d", try, got, want)
		}
	}
	if got := solution(wrong, "outlive-lease", 3); got != http.StatusForbidden {
		t.Errorf("another variant after earning variant 0: %d, want 403", got)
	}
	// A format error is no try.
	fmtErr := newPerson(t, ts.URL)
	for range 4 {
		fmtErr.postJSON("/api/exercises/outlive-lease/check", `{"answer":"forty"}`)
	}
	if got := solution(fmtErr, "outlive-lease", 0); got != http.StatusForbidden {
		t.Errorf("after four unreadable answers: %d, want 403", got)
	}

	right := newPerson(t, ts.URL)
	right.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50 runs"}`)
	if got := solution(right, "outlive-lease", 0); got != http.StatusOK {
		t.Errorf("after a right answer: %d", got)
	}
	var body struct{ Solution string }
	right.get("/api/exercises/outlive-lease/solution?variant=0").decode(t, &body)
	if !strings.Contains(body.Solution, "50 runs") {
		t.Errorf("the solution %q", body.Solution)
	}

	quitter := newPerson(t, ts.URL)
	a := quitter.postJSON("/api/exercises/nightly-total-predict/give-up", `{"variant":0}`)
	wantStatus(t, a, http.StatusOK, "give up")
	var shown map[string]any
	a.decode(t, &shown)
	if shown["revealed"] != true || shown["expected"] != "Rs 42,000" || shown["timeline"] == nil || shown["solution_html"] == nil {
		t.Errorf("show me on a prediction gives %v", shown)
	}
	if got := solution(quitter, "nightly-total-predict", 0); got != http.StatusOK {
		t.Errorf("after giving up: %d", got)
	}
	if got := solution(quitter, "outlive-lease", 0); got != http.StatusForbidden {
		t.Errorf("giving up on one exercise earned another: %d", got)
	}

	// The cookie is signed: the same state with a changed byte earns
	// nothing, and a cookie from another server's key is not believed.
	forged := newPerson(t, ts.URL)
	value := right.cookie(web.PracticeCookie)
	if value == "" {
		t.Fatal("no practice cookie was set")
	}
	tampered := []byte(value)
	tampered[3] ^= 1
	forged.header.Set("Cookie", web.PracticeCookie+"="+string(tampered))
	if got := solution(forged, "outlive-lease", 0); got != http.StatusForbidden {
		t.Errorf("a tampered cookie: %d, want 403", got)
	}
	other, _ := startServer(t, web.Config{})
	stranger := newPerson(t, other.URL)
	stranger.header.Set("Cookie", web.PracticeCookie+"="+value)
	if got := solution(stranger, "outlive-lease", 0); got != http.StatusForbidden {
		t.Errorf("another server's cookie: %d, want 403", got)
	}
}

// TestPracticeCookieStaysSmall: giving up on every cheap exercise on many
// variants keeps the cookie small (one entry per exercise, the variant in
// use), and the latest is remembered. The bound on entries is tested with
// more exercises than the catalog has in TestPracticeCookieKeepsTheLatest.
func TestPracticeCookieStaysSmall(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	p := newPerson(t, ts.URL)
	ids := []string{}
	for _, ex := range catalog(t).Exercises() {
		if ex.Kind == lessons.KindNumber || ex.Kind == lessons.KindChoice {
			ids = append(ids, ex.ID)
		}
	}
	// Every cheap exercise on many variants.
	for v := range 8 {
		for _, id := range ids {
			p.postJSON("/api/exercises/"+id+"/give-up", fmt.Sprintf(`{"variant":%d}`, v))
		}
	}
	if n := len(p.cookie(web.PracticeCookie)); n == 0 || n > 4000 {
		t.Fatalf("practice cookie is %d bytes", n)
	}
	// The last one given up on is still remembered.
	last := ids[len(ids)-1]
	if a := p.get("/api/exercises/" + last + "/solution?variant=7"); a.status != http.StatusOK {
		t.Errorf("the latest give-up was forgotten: %d", a.status)
	}
}

// TestWrongPredictionOverHTTPShowsNoValue: over the API, a first wrong
// prediction says why, and carries neither the run nor its value.
func TestWrongPredictionOverHTTPShowsNoValue(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	p := newPerson(t, ts.URL)
	var res map[string]any
	p.postJSON("/api/exercises/nightly-total-predict/check", `{"answer":"Rs 45,000"}`).decode(t, &res)
	if res["correct"] != false || res["timeline"] != nil || res["expected"] != nil || strings.Contains(fmt.Sprint(res["feedback"]), "42,000") {
		t.Errorf("a wrong prediction shows the run: %v", res)
	}
	if !strings.Contains(fmt.Sprint(res["feedback"]), "should be") {
		t.Errorf("a wrong prediction does not say why: %v", res["feedback"])
	}
}
