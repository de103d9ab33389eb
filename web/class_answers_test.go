package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// TestClassLearnersEarnSolutionsFromTheStore: in a class the store's
// count decides: three wrong answers earn the solution, giving up is
// recorded for the teacher, and neither the body's variant nor a practice
// cookie changes anything.
func TestClassLearnersEarnSolutionsFromTheStore(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Week 5")
		ada, adaID := join(t, base, c.Code, "Ada")
		mine := classVariant(t, st, c, adaID)
		if s := getExercise(t, ada, "crash-wait", 0); s.Variant != 0 || !s.InClass || s.PromptText != promptOf(t, "crash-wait", mine) {
			t.Fatalf("a class learner is served variant %d (in class %v): want their own numbers, the variant kept secret", s.Variant, s.InClass)
		}
		for try := 1; try <= lessons.RevealAfter; try++ {
			if a := ada.get("/api/exercises/crash-wait/solution"); a.status != http.StatusForbidden {
				t.Fatalf("before wrong try %d: solution %d", try, a.status)
			}
			var res map[string]any
			ada.postJSON("/api/exercises/crash-wait/check", `{"answer":"7","variant":0}`).decode(t, &res)
			if res["variant"] != float64(0) || res["correct"] != false {
				t.Fatalf("try %d: %v", try, res)
			}
		}
		if a := ada.get("/api/exercises/crash-wait/solution?variant=0"); a.status != http.StatusOK {
			t.Errorf("after three wrong tries: %d %s", a.status, a.body)
		}
		if s := getExercise(t, ada, "crash-wait", 0); s.Tries != 3 || len(s.Hints) != 2 || !s.Earned {
			t.Errorf("served after three tries: %+v", s)
		}

		a := ada.postJSON("/api/exercises/outlive-lease/give-up", `{"variant":0}`)
		wantStatus(t, a, http.StatusOK, "give up")
		if a := ada.get("/api/exercises/outlive-lease/solution"); a.status != http.StatusOK {
			t.Errorf("after giving up: %d", a.status)
		}
		owner := teacher(t, base, c.TeacherKey)
		var dash struct {
			Exercises []struct {
				ID     string `json:"id"`
				GaveUp int    `json:"gave_up"`
			} `json:"exercises"`
		}
		owner.get("/api/classes/"+c.Code+"/dashboard").decode(t, &dash)
		for _, ex := range dash.Exercises {
			if ex.ID == "outlive-lease" && ex.GaveUp != 1 {
				t.Errorf("the dashboard counts %d give-ups on outlive-lease", ex.GaveUp)
			}
		}
		rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body)
		for _, r := range rows[1:] {
			if r[1] == "outlive-lease" && (r[8] != "1" || r[2] != "0") {
				t.Errorf("progress.csv row %q: want gave_up 1, attempted 0", r)
			}
		}
		// Another learner has earned nothing.
		bo, _ := join(t, base, c.Code, "Bo")
		if a := bo.get("/api/exercises/outlive-lease/solution"); a.status != http.StatusForbidden {
			t.Errorf("another learner's solution: %d", a.status)
		}
	})
}

// classVariant is the variant a learner of a per-learner class is graded
// on, which the server never shows them: worked out as the server does,
// from the class's secret in the store.
func classVariant(t *testing.T, st classroom.Store, c created, learnerID int64) int {
	t.Helper()
	cl, err := st.TeacherClass(t.Context(), c.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	return lessons.ClassVariant(cl.VariantSecret, fmt.Sprintf("class-%d/learner-%d", cl.ID, learnerID))
}

// promptOf is an exercise's prompt on a variant, as the API serves it.
func promptOf(t *testing.T, id string, variant int) string {
	t.Helper()
	ex, err := catalog(t).Exercise(id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ex.Serve(variant, lessons.Standing{})
	if err != nil {
		t.Fatal(err)
	}
	return s.PromptText
}

func classID(t *testing.T, st classroom.Store, c created) int64 {
	t.Helper()
	cl, err := st.TeacherClass(t.Context(), c.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	return cl.ID
}

// TestSharedClassVariants: a class created with "variants": "shared"
// gives every learner the lesson's own numbers (variant 0) whatever they
// ask, where a default class gives each their own.
func TestSharedClassVariants(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		a := newPerson(t, base).postJSON("/api/classes", `{"name":"Lecture","variants":"shared"}`)
		wantStatus(t, a, http.StatusCreated, "create a shared class")
		var c created
		a.decode(t, &c)
		own := createClass(t, base, "Lab")
		seen := map[int]bool{}
		prompts := map[string]bool{}
		for i := range 3 {
			p, _ := join(t, base, c.Code, fmt.Sprintf("L%d", i))
			if s := getExercise(t, p, "outlive-lease", 9); s.Variant != 0 {
				t.Errorf("a learner of a shared class gets variant %d", s.Variant)
			}
			var res map[string]any
			p.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50","variant":4}`).decode(t, &res)
			if res["correct"] != true || res["variant"] != float64(0) {
				t.Errorf("the lesson's answer in a shared class: %v", res)
			}
			q, id := join(t, base, own.Code, fmt.Sprintf("L%d", i))
			v := classVariant(t, st, own, id)
			seen[v] = true
			s := getExercise(t, q, "outlive-lease", 0)
			if s.Variant != 0 || s.PromptText != promptOf(t, "outlive-lease", v) {
				t.Errorf("a learner of a per-learner class is served variant %d, prompt %q: want their own numbers, the variant kept secret", s.Variant, s.PromptText)
			}
			prompts[s.PromptText] = true
		}
		if len(seen) != 3 || seen[0] {
			t.Errorf("learners of a per-learner class got variants %v", seen)
		}
		bad := newPerson(t, base).postJSON("/api/classes", `{"name":"X","variants":"everyone"}`)
		var e struct{ Field string }
		bad.decode(t, &e)
		if bad.status != http.StatusBadRequest || e.Field != "variants" {
			t.Errorf("variants everyone: %d %s", bad.status, bad.body)
		}
		// The teacher can switch a class later; nobody else can.
		owner := teacher(t, base, own.TeacherKey)
		wantStatus(t, owner.postJSON("/api/classes/"+own.Code+"/variants", `{"variants":"shared"}`), http.StatusOK, "switch to shared")
		learner, _ := join(t, base, own.Code, "Late")
		if s := getExercise(t, learner, "outlive-lease", 0); s.Variant != 0 {
			t.Errorf("after the switch a learner gets variant %d", s.Variant)
		}
		if a := learner.postJSON("/api/classes/"+own.Code+"/variants", `{"variants":"per-learner"}`); a.status != http.StatusUnauthorized {
			t.Errorf("a learner switching variants: %d", a.status)
		}
	})
}

// TestTextAnswersGoToTheTeacher: an open answer is submitted, never
// marked; the teacher reads it on the dashboard and in answers.csv, scores
// it, and the score and comment reach the learner and progress.csv. Only
// the class's teacher may score, and only open answers, from 0 to 1.
func TestTextAnswersGoToTheTeacher(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Week 8")
		ada, adaID := join(t, base, c.Code, "Ada")
		const answer = "Give every reminder an idempotency key made from the reminder, so the provider drops the repeat."
		var res map[string]any
		ada.postJSON("/api/exercises/sms-twice/check", `{"answer":`+jsonString(answer)+`}`).decode(t, &res)
		if res["submitted"] != true || res["graded"] != false || res["correct"] != false || res["model_answer"] == nil || res["rubric"] == nil {
			t.Fatalf("a text answer: %v", res)
		}
		owner := teacher(t, base, c.TeacherKey)
		page := owner.get("/class/" + c.Code + "/teacher")
		wantStatus(t, page, http.StatusOK, "dashboard")
		card := oneByTestID(t, parseHTML(t, page.body), "answer-card")
		if got := text(oneByTestID(t, card, "answer-text")); got != answer {
			t.Errorf("the dashboard shows the answer as %q", got)
		}
		csv := owner.get("/api/classes/" + c.Code + "/answers.csv")
		wantStatus(t, csv, http.StatusOK, "answers.csv")
		rows := readCSV(t, csv.body)
		if strings.Join(rows[0], ",") != "learner,exercise,variant,answer,time,score,comment,late" || len(rows) != 2 || rows[1][3] != answer || rows[1][5] != "" {
			t.Fatalf("answers.csv before scoring: %q", rows)
		}

		review := fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice","score":0.75,"comment":"Say why fencing cannot help."}`, adaID)
		for _, tc := range []struct {
			who    *person
			path   string
			body   string
			status int
		}{
			{newPerson(t, base), "/api/classes/" + c.Code + "/reviews", review, http.StatusUnauthorized},
			{ada, "/api/classes/" + c.Code + "/reviews", review, http.StatusUnauthorized},
			{teacher(t, base, createClass(t, base, "Other").TeacherKey), "/api/classes/" + c.Code + "/reviews", review, http.StatusForbidden},
			{owner, "/api/classes/" + c.Code + "/reviews", strings.Replace(review, "0.75", "2", 1), http.StatusBadRequest},
			{owner, "/api/classes/" + c.Code + "/reviews", strings.Replace(review, "sms-twice", "outlive-lease", 1), http.StatusBadRequest},
			{owner, "/api/classes/" + c.Code + "/reviews", fmt.Sprintf(`{"learner_id":%d,"exercise":"sms-twice"}`, adaID), http.StatusBadRequest},
			{owner, "/api/classes/" + c.Code + "/reviews", strings.Replace(review, fmt.Sprint(adaID), "999999", 1), http.StatusNotFound},
		} {
			if a := tc.who.postJSON(tc.path, tc.body); a.status != tc.status {
				t.Errorf("POST reviews %s: %d %s, want %d", tc.body, a.status, a.body, tc.status)
			}
		}
		if a := owner.postJSON("/api/classes/"+c.Code+"/reviews", review); a.status != http.StatusOK {
			t.Fatalf("the teacher's review: %d %s", a.status, a.body)
		}
		if s := getExercise(t, ada, "sms-twice", 0); s.Review == nil || s.Review.Score != 0.75 || s.Review.Comment != "Say why fencing cannot help." {
			t.Errorf("the learner's exercise shows the review as %+v", s.Review)
		}
		var me struct {
			Progress []classroom.Progress `json:"progress"`
		}
		ada.get("/api/me").decode(t, &me)
		if len(me.Progress) != 1 || me.Progress[0].Review == nil || me.Progress[0].Review.Score != 0.75 {
			t.Errorf("the learner's progress: %+v", me.Progress)
		}
		learnerPage := ada.get("/class/me")
		if !strings.Contains(learnerPage.body, "Say why fencing cannot help.") {
			t.Error("the learner's page does not show the teacher's comment")
		}
		for _, r := range readCSV(t, owner.get("/api/classes/"+c.Code+"/progress.csv").body)[1:] {
			if r[1] == "sms-twice" && (r[9] != "0.75" || r[10] != "Say why fencing cannot help.") {
				t.Errorf("progress.csv row %q", r)
			}
		}
		if rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/answers.csv").body); rows[1][5] != "0.75" {
			t.Errorf("answers.csv after scoring: %q", rows)
		}
		if a := ada.get("/api/classes/" + c.Code + "/answers.csv"); a.status != http.StatusUnauthorized {
			t.Errorf("a learner reading answers.csv: %d", a.status)
		}
	})
}

// TestMistakesAreGroupedAcrossVariants: learners who make the same slip on
// their own numbers are one mistake for the teacher, with each learner's
// own answer; unnamed answers group by the value read.
func TestMistakesAreGroupedAcrossVariants(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Week 9")
		cat := catalog(t)
		ex, err := cat.Exercise("crash-wait")
		if err != nil {
			t.Fatal(err)
		}
		// The upside-down ratio, short / long, on each learner's numbers.
		var answers []string
		for i := range 3 {
			p, id := join(t, base, c.Code, fmt.Sprintf("L%d", i))
			v := classVariant(t, st, c, id)
			s, _ := ex.Serve(v, lessons.Standing{})
			short, long := waits(t, s.PromptText)
			ans := fmt.Sprintf("%.4f", short/long)
			answers = append(answers, ans)
			var res map[string]any
			p.postJSON("/api/exercises/crash-wait/check", `{"answer":"`+ans+`"}`).decode(t, &res)
			if res["mistake"] != "upside-down" {
				t.Fatalf("%s on variant %d: %v", ans, v, res)
			}
			if i < 2 {
				p.postJSON("/api/exercises/crash-wait/check", `{"answer":"7 times"}`)
				p.postJSON("/api/exercises/crash-wait/check", `{"answer":"1"}`)
			}
		}
		// An unnamed answer typed two ways by two learners: one group.
		owner := teacher(t, base, c.TeacherKey)
		a := owner.get("/api/classes/" + c.Code + "/mistakes")
		wantStatus(t, a, http.StatusOK, "mistakes")
		var groups []struct {
			Exercise, Mistake, ID, Value string
			Count                        int
			Learners                     []struct {
				ID      int64  `json:"id"`
				Name    string `json:"name"`
				Answer  string `json:"answer"`
				Variant int    `json:"variant"`
			}
		}
		a.decode(t, &groups)
		if len(groups) < 2 || groups[0].ID != "upside-down" || groups[0].Count != 3 || !strings.Contains(groups[0].Mistake, "upside down") {
			t.Fatalf("mistakes: %+v", groups)
		}
		for i, l := range groups[0].Learners {
			if l.Answer != answers[i] || l.Name != fmt.Sprintf("L%d", i) {
				t.Errorf("learner %d in the group: %+v, want %s's own %s", i, l, fmt.Sprintf("L%d", i), answers[i])
			}
		}
		for _, g := range groups[1:] {
			if g.ID == "" && g.Value == "7" && g.Count != 2 {
				t.Errorf("the unnamed 7 group: %+v", g)
			}
		}
		page := parseHTML(t, owner.get("/class/"+c.Code+"/teacher").body)
		if n := len(byTestID(page, "mistake")); n == 0 {
			t.Error("the dashboard shows no mistakes")
		}
		if a := newPerson(t, base).get("/api/classes/" + c.Code + "/mistakes"); a.status != http.StatusUnauthorized {
			t.Errorf("mistakes without the key: %d", a.status)
		}
	})
}

// waits reads "**N s** lease ... **M-minute** lease" from a crash-wait
// prompt and returns both in seconds.
func waits(t *testing.T, prompt string) (short, long float64) {
	t.Helper()
	var s, m float64
	fields := strings.Fields(strings.ReplaceAll(prompt, "**", " "))
	for i, f := range fields {
		if f == "s" && i > 0 && s == 0 {
			fmt.Sscan(fields[i-1], &s)
		}
		if strings.HasSuffix(f, "-minute") && m == 0 {
			fmt.Sscan(strings.TrimSuffix(f, "-minute"), &m)
		}
	}
	if s == 0 || m == 0 {
		t.Fatalf("could not read the leases of %q", prompt)
	}
	return s, m * 60
}
