package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// Grade integrity, played through HTTP by a class of learners, each with
// a cookie jar of their own, and a teacher with the key.

// expected is an exercise's right answer on a variant, as the checker
// writes it ("50 runs" reads back as 50).
func expected(t *testing.T, id string, variant int) string {
	t.Helper()
	ex, err := catalog(t).Exercise(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ex.Reveal(context.Background(), variant)
	if err != nil {
		t.Fatal(err)
	}
	return r.Expected
}

// answerAs posts an answer and returns the check's JSON.
func answerAs(t *testing.T, p *person, id, answer string) map[string]any {
	t.Helper()
	a := p.postJSON("/api/exercises/"+id+"/check", `{"answer":`+jsonString(answer)+`}`)
	wantStatus(t, a, http.StatusOK, "check "+id)
	var res map[string]any
	a.decode(t, &res)
	return res
}

// dashCells reads the teacher's dashboard JSON: per learner name and
// exercise, the cell; per learner name, the Solved count and the score.
type dashRead struct {
	cells  map[[2]string]map[string]any
	solved map[string]float64
	score  map[string]string
	stats  map[string]map[string]any
	raw    map[string]any
}

func readDashboard(t *testing.T, owner *person, code string) dashRead {
	t.Helper()
	a := owner.get("/api/classes/" + code + "/dashboard")
	wantStatus(t, a, http.StatusOK, "dashboard")
	var v map[string]any
	a.decode(t, &v)
	d := dashRead{cells: map[[2]string]map[string]any{}, solved: map[string]float64{}, score: map[string]string{},
		stats: map[string]map[string]any{}, raw: v}
	exs := v["exercises"].([]any)
	for _, e := range exs {
		d.stats[e.(map[string]any)["id"].(string)] = e.(map[string]any)
	}
	for _, l := range v["learners"].([]any) {
		lm := l.(map[string]any)
		name := lm["name"].(string)
		d.solved[name] = lm["correct"].(float64)
		d.score[name] = lm["score"].(string)
		for i, c := range lm["cells"].([]any) {
			d.cells[[2]string{name, exs[i].(map[string]any)["id"].(string)}] = withBlanks(c.(map[string]any))
		}
	}
	return d
}

// withBlanks is a grid cell as teacher.js's cellOf reads it: the fields
// the server leaves out when empty are put back, empty.
func withBlanks(cell map[string]any) map[string]any {
	out := map[string]any{"tries": 0.0, "correct": false, "status": "", "score": "", "text": "", "state": "", "title": "", "late": false, "late_credit": false}
	for k, v := range cell {
		out[k] = v
	}
	return out
}

// csvBy reads a CSV with a header into rows keyed by learner and the
// given column (exercise), or by learner alone when col is "".
func csvBy(t *testing.T, body, col string) map[[2]string]map[string]string {
	t.Helper()
	rows := readCSV(t, body)
	out := map[[2]string]map[string]string{}
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		k := [2]string{m["learner"], ""}
		if col != "" {
			k[1] = m[col]
		}
		out[k] = m
	}
	return out
}

// learnerPageScores reads a learner's own page: per exercise, its status
// and score.
func learnerPageScores(t *testing.T, p *person) map[string][2]string {
	t.Helper()
	page := p.get("/class/me")
	wantStatus(t, page, http.StatusOK, "the learner's page")
	out := map[string][2]string{}
	for _, li := range byTestID(parseHTML(t, page.body), "learner-exercise") {
		id, _ := attr(li, "data-exercise")
		st, _ := attr(li, "data-state")
		sc, _ := attr(li, "data-score")
		out[id] = [2]string{st, sc}
	}
	return out
}

// TestClassNumbersStaySecret: a class learner's variant is in no page or
// JSON they get, and nobody outside the class (practice, give-up,
// solution, check) can ask about it: before, the page said
// data-variant="578750" and an anonymous give-up on 578750 answered with
// that learner's answer.
func TestClassNumbersStaySecret(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Secret numbers")
		ada, adaID := join(t, base, c.Code, "Ada")
		mine := classVariant(t, st, c, adaID)
		id := "lock-writes-per-second"
		ex, err := catalog(t).Exercise(id)
		if err != nil {
			t.Fatal(err)
		}
		shown := map[string]int{}
		page := ada.get("/lessons/" + ex.Lesson)
		wantStatus(t, page, http.StatusOK, "the lesson page")
		if strings.Contains(page.body, strconv.Itoa(mine)) {
			t.Errorf("the lesson page holds the learner's variant %d", mine)
		}
		for _, f := range byTestID(parseHTML(t, page.body), "exercise") {
			v, _ := attr(f, "data-variant")
			n, _ := strconv.Atoi(v)
			shown["page "+v] = n
		}
		s := getExercise(t, ada, id, 0)
		shown["exercise JSON"] = s.Variant
		if s.PromptText != promptOf(t, id, mine) {
			t.Fatalf("the learner is not served their own numbers")
		}
		res := answerAs(t, ada, id, "12")
		shown["check"] = int(res["variant"].(float64))
		g := ada.postJSON("/api/exercises/"+id+"/give-up", `{"variant":0}`)
		wantStatus(t, g, http.StatusOK, "give up")
		var gr map[string]any
		g.decode(t, &gr)
		shown["give-up"] = int(gr["variant"].(float64))
		if gr["expected"] != expected(t, id, mine) {
			t.Errorf("the learner's give-up shows %v, want their own answer %q", gr["expected"], expected(t, id, mine))
		}
		var me struct {
			Progress []struct {
				LastVariant int `json:"last_variant"`
			} `json:"progress"`
		}
		ada.get("/api/me").decode(t, &me)
		for i, p := range me.Progress {
			shown[fmt.Sprintf("me %d", i)] = p.LastVariant
		}
		for where, v := range shown {
			if v == mine || lessons.IsClassVariant(v) {
				t.Errorf("%s shows the learner their class variant %d", where, v)
			}
		}

		// Outside the class, the class variant is refused everywhere.
		out := newPerson(t, base)
		v := strconv.Itoa(mine)
		for _, a := range []answer{
			out.get("/api/exercises/" + id + "?variant=" + v),
			out.get("/api/exercises/" + id + "/solution?variant=" + v),
			out.postJSON("/api/exercises/"+id+"/give-up", `{"variant":`+v+`}`),
			out.postJSON("/api/exercises/"+id+"/check", `{"answer":"1","variant":`+v+`}`),
		} {
			if a.status != http.StatusBadRequest || !strings.Contains(a.body, `"variant"`) {
				t.Errorf("a request outside the class naming the class variant: %d %s, want 400 on variant", a.status, a.body)
			}
		}
		// Another class's learner with the same id in the store order
		// gets other numbers: the variant hangs on the class's secret.
		c2 := createClass(t, base, "Another")
		_, id2 := join(t, base, c2.Code, "Ada")
		if classVariant(t, st, c2, id2) == mine {
			t.Errorf("two classes draw the same variant")
		}
	})
}

// TestRevealEndsCredit: after giving up, or after the third wrong try
// showed the answer, a right answer is practice: it earns 0, is not
// "solved", and the grid, both CSVs and the learner's page say revealed.
// Before, it counted as solved, 1 in progress-wide.csv.
func TestRevealEndsCredit(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Reveals")
		const id = "outlive-lease"
		ada, adaID := join(t, base, c.Code, "Ada") // gives up, then answers
		bo, boID := join(t, base, c.Code, "Bo")    // right at once
		cy, cyID := join(t, base, c.Code, "Cy")    // three wrong tries, then right

		wantStatus(t, ada.postJSON("/api/exercises/"+id+"/give-up", `{"variant":0}`), http.StatusOK, "give up")
		res := answerAs(t, ada, id, expected(t, id, classVariant(t, st, c, adaID)))
		if res["correct"] != true || res["score"] != float64(0) || !strings.Contains(res["feedback"].(string), "practice") {
			t.Errorf("right after giving up: %v, want right, score 0, told it is practice", res)
		}
		if res := answerAs(t, bo, id, expected(t, id, classVariant(t, st, c, boID))); res["score"] != float64(1) {
			t.Errorf("right at the first try: %v, want score 1", res)
		}
		for _, wrong := range []string{"1", "2", "3"} {
			answerAs(t, cy, id, wrong)
		}
		if res := answerAs(t, cy, id, expected(t, id, classVariant(t, st, c, cyID))); res["score"] != float64(0) {
			t.Errorf("right after the third wrong try showed the answer: %v, want score 0", res)
		}

		owner := teacher(t, base, c.TeacherKey)
		d := readDashboard(t, owner, c.Code)
		for _, w := range []struct {
			name, status, text string
			solved             float64
		}{{"Ada", "revealed", "revealed", 0}, {"Bo", "solved", "✓ 1", 1}, {"Cy", "revealed", "revealed", 0}} {
			cell := d.cells[[2]string{w.name, id}]
			if cell["status"] != w.status || cell["text"] != w.text || d.solved[w.name] != w.solved {
				t.Errorf("grid, %s: %v, Solved %v; want %s %q, Solved %v", w.name, cell, d.solved[w.name], w.status, w.text, w.solved)
			}
		}
		if n := d.stats[id]["correct"]; n != float64(1) {
			t.Errorf("the exercise counts %v solved, want 1 (Bo)", n)
		}
		long := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		for name, want := range map[string][4]string{"Ada": {"0", "0", "1", "revealed"}, "Bo": {"1", "1", "0", "solved"}, "Cy": {"0", "0", "1", "revealed"}} {
			r := long[[2]string{name, id}]
			if got := [4]string{r["correct"], r["score"], r["revealed"], r["status"]}; got != want {
				t.Errorf("progress.csv, %s: correct, score, revealed, status %v, want %v", name, got, want)
			}
			if w := wide[[2]string{name, ""}][id]; w != want[1] {
				t.Errorf("progress-wide.csv, %s: %q, want %q", name, w, want[1])
			}
		}
		for p, want := range map[*person]string{ada: "revealed", bo: "solved", cy: "revealed"} {
			if got := learnerPageScores(t, p)[id][0]; got != want {
				t.Errorf("a learner's page says %q, want %q", got, want)
			}
		}
		page := ada.get("/class/me")
		if !strings.Contains(page.body, "revealed: you saw the answer first") || strings.Contains(page.body, "1 of ") {
			t.Errorf("Ada's page does not say the exercise was revealed, or counts it solved")
		}
	})
}

// TestTeacherScoresReachEveryView: a teacher's score of an open answer is
// its score in the grid, progress-wide.csv, progress.csv, "Solved" and
// the learner's page. Before, an answer scored 1 showed ✗ and 0.
func TestTeacherScoresReachEveryView(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Scores")
		const id = "sms-twice"
		ada, adaID := join(t, base, c.Code, "Ada")
		bo, boID := join(t, base, c.Code, "Bo")
		answerAs(t, ada, id, "Give each reminder an idempotency key so the provider drops the repeat.")
		answerAs(t, bo, id, "Use a lock.")
		owner := teacher(t, base, c.TeacherKey)
		d := readDashboard(t, owner, c.Code)
		if cell := d.cells[[2]string{"Ada", id}]; cell["status"] != "submitted" || cell["score"] != "" {
			t.Errorf("an open answer not scored yet: %v", cell)
		}
		for lid, sc := range map[int64]string{adaID: "1", boID: "0.25"} {
			wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
				fmt.Sprintf(`{"learner_id":%d,"exercise":%q,"score":%s,"comment":"read"}`, lid, id, sc)), http.StatusOK, "review")
		}
		d = readDashboard(t, owner, c.Code)
		long := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body, "exercise")
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		for name, w := range map[string]struct {
			score, text, correct string
			solved               float64
			p                    *person
		}{"Ada": {"1", "✎ 1", "1", 1, ada}, "Bo": {"0.25", "✎ 0.25", "0", 0, bo}} {
			cell := d.cells[[2]string{name, id}]
			if cell["status"] != "scored" || cell["score"] != w.score || cell["text"] != w.text || d.solved[name] != w.solved || d.score[name] != w.score {
				t.Errorf("grid, %s: %v, Solved %v, score %v; want scored %s", name, cell, d.solved[name], d.score[name], w.score)
			}
			if r := long[[2]string{name, id}]; r["score"] != w.score || r["correct"] != w.correct || r["status"] != "scored" {
				t.Errorf("progress.csv, %s: %v", name, r)
			}
			if r := wide[[2]string{name, ""}]; r[id] != w.score || r["score"] != w.score {
				t.Errorf("progress-wide.csv, %s: %v", name, r)
			}
			if got := learnerPageScores(t, w.p)[id]; got != [2]string{"scored", w.score} {
				t.Errorf("%s's page: %v, want scored %s", name, got, w.score)
			}
		}
		if n := d.stats[id]["correct"]; n != float64(1) {
			t.Errorf("the open question counts %v solved, want 1 (Ada's full marks)", n)
		}
	})
}

// TestCreditRulesThroughHTTP: declining credit for numbers, partial
// credit for choose-several, every attempt in attempts.csv as typed and
// as read, mistakes after a right answer not listed, the open-answer card
// saying the model answer was seen and showing the earlier answers, and
// OnScoreChange told of every new best.
func TestCreditRulesThroughHTTP(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		var mu sync.Mutex
		var changes []classroom.ScoreChange
		ts, _ := startServer(t, web.Config{Classroom: st, OnScoreChange: func(_ context.Context, ch classroom.ScoreChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, ch)
		}})
		base := ts.URL
		c := createClass(t, base, "Credit")
		ada, adaID := join(t, base, c.Code, "Ada")
		right := expected(t, "outlive-lease", classVariant(t, st, c, adaID))

		if res := answerAs(t, ada, "outlive-lease", "1"); res["score"] != float64(0) {
			t.Errorf("a wrong number: %v", res)
		}
		if res := answerAs(t, ada, "outlive-lease", right); res["score"] != 0.75 {
			t.Errorf("a number right at the second try: %v, want 0.75", res)
		}
		answerAs(t, ada, "outlive-lease", "2") // after the right one: no misconception of hers

		// four-failures: the right options on the learner's variant.
		ff := expected(t, "four-failures", classVariant(t, st, c, adaID))
		keys := strings.Split(ff, ", ")
		if res := answerAs(t, ada, "four-failures", strings.Join(keys[:2], ", ")); res["score"] != 2/float64(len(keys)) {
			t.Errorf("two of %d right options: %v", len(keys), res)
		}
		// Open answers: a second one, written after the model answer showed.
		answerAs(t, ada, "sms-twice", "First thoughts on the reminders.")
		answerAs(t, ada, "sms-twice", "Second go, having read the model answer.")

		owner := teacher(t, base, c.TeacherKey)
		a := owner.get("/api/classes/" + c.Code + "/attempts.csv")
		wantStatus(t, a, http.StatusOK, "attempts.csv")
		if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("attempts.csv Content-Type %q", ct)
		}
		rows := readCSV(t, a.body)
		if strings.Join(rows[0], ",") != "learner,exercise,variant,try,answer,read,result,score,after_reveal,time,late,after_run" {
			t.Fatalf("attempts.csv header %v", rows[0])
		}
		if len(rows) != 1+6 {
			t.Fatalf("attempts.csv has %d attempts, want 6:\n%s", len(rows)-1, a.body)
		}
		if r := rows[2]; r[0] != "Ada" || r[1] != "outlive-lease" || r[3] != "2" || r[4] != right || r[6] != "right" || r[7] != "0.75" || r[9] == "" {
			t.Errorf("the right answer's row %v", r)
		}
		if r := rows[6]; r[6] != "submitted" || r[7] != "" || r[8] != "1" {
			t.Errorf("the second open answer's row %v: want submitted, no score, after the reveal", r)
		}
		if a := newPerson(t, base).get("/api/classes/" + c.Code + "/attempts.csv"); a.status != http.StatusUnauthorized {
			t.Errorf("attempts.csv without the key: %d", a.status)
		}

		var groups []struct {
			Exercise string `json:"exercise"`
			Learners []struct {
				Answer string `json:"answer"`
			} `json:"learners"`
		}
		owner.get("/api/classes/"+c.Code+"/mistakes").decode(t, &groups)
		for _, g := range groups {
			for _, l := range g.Learners {
				if g.Exercise == "outlive-lease" && l.Answer == "2" {
					t.Errorf("a wrong answer after the right one is listed as a misconception")
				}
			}
		}

		d := readDashboard(t, owner, c.Code)
		answers := d.raw["answers"].([]any)
		if len(answers) != 1 {
			t.Fatalf("answers %v", answers)
		}
		card := answers[0].(map[string]any)
		earlier := card["earlier_answers"].([]any)
		if card["saw_model"] != true || len(earlier) != 1 || earlier[0].(map[string]any)["answer"] != "First thoughts on the reminders." {
			t.Errorf("the open-answer card %v: want saw the model answer, and the first answer shown", card)
		}
		dash := owner.get("/class/" + c.Code + "/teacher")
		doc := parseHTML(t, dash.body)
		oneByTestID(t, doc, "answer-saw-model")
		if e := byTestID(doc, "answer-earlier-text"); len(e) != 1 || !strings.Contains(text(e[0]), "First thoughts") {
			t.Errorf("the card's earlier answers on the page: %d", len(e))
		}

		mu.Lock()
		got := append([]classroom.ScoreChange(nil), changes...)
		mu.Unlock()
		if len(got) != 2 || got[0].Exercise != "outlive-lease" || got[0].Score != 0.75 || got[0].ClassCode != c.Code ||
			got[1].Exercise != "four-failures" || got[1].LearnerID != adaID {
			t.Errorf("score changes %+v: want outlive-lease to 0.75, then four-failures", got)
		}
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
			fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":0.5}`, adaID)), http.StatusOK, "review")
		mu.Lock()
		if n := len(changes); n != 3 || changes[2].Score != 0.5 || changes[2].Exercise != "sms-twice" {
			t.Errorf("after a review, changes %+v", changes)
		}
		mu.Unlock()
	})
}

// viewsAgree checks that every view a teacher or learner has gives each
// learner the same score on every exercise: progress.csv, progress-wide.csv,
// the dashboard grid, the learner's own page, gradebook.csv (points, the
// score times what the exercise is worth) and attempts.csv (the best
// attempt's score, where the checker scores attempts). It returns the
// scores they agree on, by learner name and exercise, leaving out the
// blanks (not attempted).
func viewsAgree(t *testing.T, owner *person, code string, people map[string]*person) map[[2]string]string {
	t.Helper()
	long := csvBy(t, owner.get("/api/classes/"+code+"/progress.csv").body, "exercise")
	wide := csvBy(t, owner.get("/api/classes/"+code+"/progress-wide.csv").body, "")
	book := csvBy(t, owner.get("/api/classes/"+code+"/gradebook.csv?format=plain").body, "")
	d := readDashboard(t, owner, code)
	best := map[[2]string]float64{}
	rows := readCSV(t, owner.get("/api/classes/"+code+"/attempts.csv").body)
	for _, r := range rows[1:] {
		if r[7] == "" {
			continue // an open answer: the teacher scores it
		}
		v, _ := strconv.ParseFloat(r[7], 64)
		k := [2]string{r[0], r[1]}
		best[k] = max(best[k], v)
	}
	agreed := map[[2]string]string{}
	for n, p := range people {
		page := learnerPageScores(t, p)
		for _, ex := range catalog(t).Exercises() {
			k := [2]string{n, ex.ID}
			views := map[string]string{
				"progress.csv":      long[k]["score"],
				"progress-wide.csv": wide[[2]string{n, ""}][ex.ID],
				"grid":              d.cells[k]["score"].(string),
				"learner page":      page[ex.ID][1],
			}
			if v, ok := best[k]; ok {
				views["attempts.csv"] = strconv.FormatFloat(v, 'f', -1, 64)
			}
			views["gradebook.csv"] = book[[2]string{n, ""}][ex.ID]
			if pts, err := strconv.ParseFloat(views["gradebook.csv"], 64); err == nil {
				views["gradebook.csv"] = strconv.FormatFloat(pts/ex.Points(), 'f', -1, 64)
			}
			want := views["progress.csv"]
			for where, v := range views {
				if v != want {
					t.Errorf("%s on %s: %s says %q, progress.csv %q", n, ex.ID, where, v, want)
				}
			}
			if want != "" {
				agreed[k] = want
			}
		}
	}
	return agreed
}

// TestScoresAgreeInEveryView: a class of learners answers a mix of
// exercises; progress.csv, progress-wide.csv, attempts.csv, the grid and
// each learner's page give every learner the same score on every
// exercise.
func TestScoresAgreeInEveryView(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Agree")
		type learner struct {
			p  *person
			id int64
		}
		var ls []learner
		names := []string{"Ada", "Bo", "Cy", "Dee", "Eli"}
		for _, n := range names {
			p, id := join(t, base, c.Code, n)
			ls = append(ls, learner{p, id})
		}
		ans := func(i int, id string) string { return expected(t, id, classVariant(t, st, c, ls[i].id)) }
		// Ada: right at once; Bo: wrong then right; Cy: gives up then
		// right; Dee: partial choice and a wrong number; Eli: an open
		// answer, scored.
		answerAs(t, ls[0].p, "outlive-lease", ans(0, "outlive-lease"))
		answerAs(t, ls[0].p, "four-failures", ans(0, "four-failures"))
		answerAs(t, ls[1].p, "outlive-lease", "3")
		answerAs(t, ls[1].p, "outlive-lease", ans(1, "outlive-lease"))
		ls[2].p.postJSON("/api/exercises/crash-wait/give-up", `{"variant":0}`)
		answerAs(t, ls[2].p, "crash-wait", ans(2, "crash-wait"))
		ff := strings.Split(ans(3, "four-failures"), ", ")
		answerAs(t, ls[3].p, "four-failures", ff[0])
		answerAs(t, ls[3].p, "crash-wait", "1")
		answerAs(t, ls[4].p, "sms-twice", "Idempotency keys, kept for a day.")
		owner := teacher(t, base, c.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/reviews",
			fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":0.75}`, ls[4].id)), http.StatusOK, "review")

		people := map[string]*person{}
		for i, n := range names {
			people[n] = ls[i].p
		}
		checked := len(viewsAgree(t, owner, c.Code, people))
		if checked != 7 {
			t.Errorf("%d learner-exercise scores compared, want 7", checked)
		}
		// Dee's choose-several was partly right: attempts.csv says so, as
		// the grid does ("partial"), not "wrong" beside a score of 0.25.
		for _, r := range readCSV(t, owner.get("/api/classes/"+c.Code+"/attempts.csv").body)[1:] {
			if r[0] == "Dee" && r[1] == "four-failures" && r[6] != "partial" {
				t.Errorf("Dee's partly right choice is %q in attempts.csv (score %s)", r[6], r[7])
			}
		}
		d := readDashboard(t, owner, c.Code)
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		for name, want := range map[string]string{"Ada": "2", "Bo": "0.75", "Cy": "0", "Dee": "0.25", "Eli": "0.75"} {
			if d.score[name] != want || wide[[2]string{name, ""}]["score"] != want {
				t.Errorf("%s's total: grid %q, wide %q, want %s", name, d.score[name], wide[[2]string{name, ""}]["score"], want)
			}
		}
	})
}

// TestRegradeAfterAKeyIsFixed: a class answers an exercise whose key is
// wrong (the lessons folder says twice the right count); the server is
// restarted with the fixed key and the teacher regrades: every kept
// attempt is checked again, scored again in try order, and each learner
// whose best changed is passed to OnScoreChange.
func TestRegradeAfterAKeyIsFixed(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../lessons/content")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "outlive-lease.yaml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\nanswer: outlive\n") {
		t.Fatal("outlive-lease.yaml no longer says answer: outlive")
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "\nanswer: outlive\n", "\nanswer: outlive * 2\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	broken, err := lessons.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	eachStore(t, func(t *testing.T, st classroom.Store) {
		const id = "outlive-lease"
		tsBroken, _ := startServer(t, web.Config{Classroom: st, Lessons: broken})
		c := createClass(t, tsBroken.URL, "Regrade")
		ada, adaID := join(t, tsBroken.URL, c.Code, "Ada")
		bo, boID := join(t, tsBroken.URL, c.Code, "Bo")
		count := func(id int64) string {
			f := strings.ReplaceAll(strings.Fields(expected(t, "outlive-lease", classVariant(t, st, c, id)))[0], ",", "")
			if _, err := strconv.ParseFloat(f, 64); err != nil {
				t.Fatalf("the expected count %q: %v", f, err)
			}
			return f
		}
		twice := func(id int64) string {
			n, _ := strconv.ParseFloat(count(id), 64)
			return strconv.FormatFloat(2*n, 'f', -1, 64)
		}
		if res := answerAs(t, ada, id, count(adaID)); res["correct"] != false {
			t.Fatalf("the broken key takes the right count: %v", res)
		}
		if res := answerAs(t, ada, id, twice(adaID)); res["correct"] != true || res["score"] != 0.75 {
			t.Fatalf("the broken key's count at the second try: %v", res)
		}
		answerAs(t, bo, id, count(boID))

		var mu sync.Mutex
		var changes []classroom.ScoreChange
		tsFixed, _ := startServer(t, web.Config{Classroom: st, OnScoreChange: func(_ context.Context, ch classroom.ScoreChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, ch)
		}})
		owner := teacher(t, tsFixed.URL, c.TeacherKey)
		if a := newPerson(t, tsFixed.URL).postJSON("/api/classes/"+c.Code+"/regrade", `{"exercise":"outlive-lease"}`); a.status != http.StatusUnauthorized {
			t.Errorf("a regrade without the key: %d", a.status)
		}
		for _, bad := range []string{`{"exercise":"sms-twice"}`, `{"exercise":"no-such"}`, `{}`} {
			var e struct{ Field string }
			a := owner.postJSON("/api/classes/"+c.Code+"/regrade", bad)
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != "exercise" {
				t.Errorf("regrade %s: %d %s", bad, a.status, a.body)
			}
		}
		a := owner.postJSON("/api/classes/"+c.Code+"/regrade", `{"exercise":"outlive-lease"}`)
		wantStatus(t, a, http.StatusOK, "regrade")
		var out struct {
			Attempts int                     `json:"attempts"`
			Changed  []classroom.ScoreChange `json:"changed"`
		}
		a.decode(t, &out)
		if out.Attempts != 3 || len(out.Changed) != 2 {
			t.Fatalf("regrade answered %s: want 3 attempts rechecked, 2 learners changed", a.body)
		}
		rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/attempts.csv").body)
		var got []string
		for _, r := range rows[1:] {
			got = append(got, r[0]+" "+r[3]+" "+r[6]+" "+r[7])
		}
		if want := "Ada 1 right 1,Ada 2 wrong 0,Bo 1 right 1"; strings.Join(got, ",") != want {
			t.Errorf("attempts after the regrade: %q, want %q", strings.Join(got, ","), want)
		}
		wide := csvBy(t, owner.get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
		if wide[[2]string{"Ada", ""}][id] != "1" || wide[[2]string{"Bo", ""}][id] != "1" {
			t.Errorf("progress-wide.csv after the regrade: %v", wide)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(changes) != 2 || changes[0].Previous != 0.75 || changes[0].Score != 1 || changes[1].LearnerID != boID || changes[1].Score != 1 {
			t.Errorf("score changes passed on %+v", changes)
		}
	})
}

// TestPredictionCreditAtTheFirstTryOnly: a prediction earns its credit at
// the first try; right at the second, it is solved and earns nothing. Bo,
// right at once, earns 1.
func TestPredictionCreditAtTheFirstTryOnly(t *testing.T) {
	st := openSQLite(t)
	base := startClass(t, st)
	c := createClass(t, base, "Predictions")
	const id = "check-then-write-predict"
	ada, adaID := join(t, base, c.Code, "Ada")
	bo, boID := join(t, base, c.Code, "Bo")
	right := expected(t, id, classVariant(t, st, c, adaID))
	var wrong string
	for _, o := range getExercise(t, ada, id, 0).Options {
		if !strings.Contains(right, o.Key) {
			wrong = o.Key
			break
		}
	}
	if res := answerAs(t, ada, id, wrong); res["correct"] != false || res["score"] != float64(0) {
		t.Fatalf("a wrong prediction: %v", res)
	}
	if res := answerAs(t, ada, id, right); res["correct"] != true || res["score"] != float64(0) {
		t.Errorf("right at the second try: %v, want right and score 0", res)
	}
	if res := answerAs(t, bo, id, expected(t, id, classVariant(t, st, c, boID))); res["score"] != float64(1) {
		t.Errorf("right at the first try: %v, want 1", res)
	}
	wide := csvBy(t, teacher(t, base, c.TeacherKey).get("/api/classes/"+c.Code+"/progress-wide.csv").body, "")
	if wide[[2]string{"Ada", ""}][id] != "0" || wide[[2]string{"Bo", ""}][id] != "1" {
		t.Errorf("progress-wide.csv: Ada %q, Bo %q; want 0 and 1", wide[[2]string{"Ada", ""}][id], wide[[2]string{"Bo", ""}][id])
	}
}

// TestPracticeScores: outside a class the same rules score each answer,
// kept nowhere: right at once 1, right after "show me" 0, said to be
// practice.
func TestPracticeScores(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	p := newPerson(t, ts.URL)
	if res := answerAs(t, p, "outlive-lease", expected(t, "outlive-lease", 0)); res["score"] != float64(1) {
		t.Errorf("right at once: %v", res)
	}
	q := newPerson(t, ts.URL)
	wantStatus(t, q.postJSON("/api/exercises/crash-wait/give-up", `{"variant":0}`), http.StatusOK, "give up")
	res := answerAs(t, q, "crash-wait", expected(t, "crash-wait", 0))
	if res["correct"] != true || res["score"] != float64(0) || !strings.Contains(res["feedback"].(string), "practice") {
		t.Errorf("right after show me: %v", res)
	}
}

// TestEveryExerciseHasAStoreRule: the lessons name their credit rules as
// the store knows them, so no check is refused or scored by a default.
func TestEveryExerciseHasAStoreRule(t *testing.T) {
	for _, ex := range catalog(t).Exercises() {
		if err := classroom.CheckRule(ex.CreditRule()); err != nil {
			t.Errorf("%s: %v", ex.ID, err)
		}
	}
}
