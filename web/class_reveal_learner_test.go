package web_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// revealNotes are the "shown in class" notes a page holds, by the
// exercise each belongs to: whether it is shown, and its words.
func revealNotes(t *testing.T, body string) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for _, n := range byTestID(parseHTML(t, body), "class-revealed") {
		owner := n.Parent
		for owner != nil {
			if _, ok := attr(owner, "data-exercise"); ok {
				break
			}
			owner = owner.Parent
		}
		if owner == nil {
			t.Fatalf("a class-revealed note outside any exercise: %s", text(n))
		}
		id, _ := attr(owner, "data-exercise")
		_, hidden := attr(n, "hidden")
		shown := "hidden"
		if !hidden {
			shown = "shown"
		}
		out[id] = [2]string{shown, strings.TrimSpace(text(n))}
	}
	return out
}

// TestClassRevealToldBeforeAnswering: once the teacher revealed an
// exercise to the class, the learner is told before typing an answer
// that answers to it earn nothing: on the exercise's form in its lesson,
// on their own page, and in the settings their pages follow live. Before,
// they learnt it only from the check's answer, once it had earned
// nothing.
func TestClassRevealToldBeforeAnswering(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st})
		c := createClass(t, ts.URL, "Reveal, told")
		owner := teacher(t, ts.URL, c.TeacherKey)
		dee, _ := join(t, ts.URL, c.Code, "Dee")
		const ex = "outlive-lease"
		e, err := catalog(t).Exercise(ex)
		if err != nil {
			t.Fatal(err)
		}
		lesson := "/lessons/" + e.Lesson
		// Before the reveal the notes are there, hidden, for the live
		// settings to show.
		if n := revealNotes(t, dee.get(lesson).body)[ex]; n[0] != "hidden" {
			t.Fatalf("before the reveal the form's note is %q", n)
		}
		revealToClass(t, owner, c.Code, ex)

		const words = "Your teacher showed the answer in class: answers now earn nothing"
		form := revealNotes(t, dee.get(lesson).body)
		if n := form[ex]; n[0] != "shown" || !strings.HasPrefix(n[1], words) {
			t.Errorf("the lesson's form of the revealed exercise says %q; want %q shown", n, words)
		}
		for id, n := range form {
			if id != ex && n[0] != "hidden" {
				t.Errorf("the form of %s, not revealed, says %q", id, n)
			}
		}
		page := dee.get("/class/me")
		own := revealNotes(t, page.body)
		if n := own[ex]; n[0] != "shown" || !strings.HasPrefix(n[1], words) {
			t.Errorf("the learner's page says %q of the revealed exercise; want %q shown", n, words)
		}
		for _, li := range byTestID(parseHTML(t, page.body), "learner-exercise") {
			if id, _ := attr(li, "data-exercise"); id == ex {
				w := byTestID(li, "learner-exercise-words")
				if len(w) != 1 || text(w[0]) != "revealed · score 0" {
					t.Errorf("the learner's page's words on the revealed exercise: %q, want %q", textOr(w), "revealed · score 0")
				}
			}
		}

		var me struct {
			Class struct {
				Settings struct {
					Revealed []string `json:"revealed"`
				} `json:"settings"`
			} `json:"class"`
		}
		dee.get("/api/me").decode(t, &me)
		if got := me.Class.Settings.Revealed; len(got) != 1 || got[0] != ex {
			t.Errorf("/api/me's settings list %v as revealed, want [%s]: the pages follow them live", got, ex)
		}
	})
}

func textOr(ns []*html.Node) string {
	if len(ns) == 0 {
		return ""
	}
	return text(ns[0])
}
