package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// TestClassPredictions: the class's first answers to a prediction,
// counted by what the checker read; a later try does not move the count;
// which is right is said only on reveal.
func TestClassPredictions(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		pred := firstPrediction(t)
		c := createClass(t, base, "Vote")
		owner := teacher(t, base, c.TeacherKey)
		say := func(p *person, read string, right bool) {
			if _, err := st.Record(context.Background(), p.cookie(web.LearnerCookie), classroom.Attempt{
				Exercise: pred.ID, Answer: " " + read, Parsed: read, Correct: right, Graded: true, Rule: classroom.RuleFirstTry,
			}); err != nil {
				t.Fatal(err)
			}
		}
		ada, _ := join(t, base, c.Code, "Ada")
		bo, _ := join(t, base, c.Code, "Bo")
		cy, _ := join(t, base, c.Code, "Cy")
		join(t, base, c.Code, "Dee")
		say(ada, "30", true)
		say(bo, "20", false)
		say(bo, "30", true) // after discussing: not counted
		say(cy, "30", true)

		url := "/api/classes/" + c.Code + "/predictions?exercise=" + pred.ID
		a := owner.get(url)
		wantStatus(t, a, http.StatusOK, "predictions")
		if strings.Contains(a.body, `"right"`) {
			t.Errorf("before the reveal the counts say which is right: %s", a.body)
		}
		var got struct {
			Answers []struct {
				Answer string
				Count  int
				Right  *bool
			}
			Total int
		}
		a.decode(t, &got)
		if got.Total != 3 || len(got.Answers) != 2 || got.Answers[0].Answer != "30" || got.Answers[0].Count != 2 ||
			got.Answers[1].Answer != "20" || got.Answers[1].Count != 1 {
			t.Fatalf("counts %s, want 30 twice and 20 once of 3", a.body)
		}
		a = owner.get(url + "&reveal=1")
		a.decode(t, &got)
		if got.Answers[0].Right == nil || !*got.Answers[0].Right || got.Answers[1].Right == nil || *got.Answers[1].Right {
			t.Errorf("after the reveal: %s", a.body)
		}

		// A chosen option is labelled with its text, as the question showed
		// it (in another class: this one was shown the answer, and an
		// answer after that is no prediction).
		if sv, err := pred.Serve(0, lessons.Standing{}); err == nil && len(sv.Options) > 0 {
			c2 := createClass(t, base, "Vote again")
			eve, _ := join(t, base, c2.Code, "Eve")
			say(eve, sv.Options[0].ID, false)
			var withLabels struct {
				Answers []struct{ Answer, Label string }
			}
			teacher(t, base, c2.TeacherKey).get("/api/classes/"+c2.Code+"/predictions?exercise="+pred.ID).decode(t, &withLabels)
			found := false
			for _, a := range withLabels.Answers {
				found = found || a.Answer == sv.Options[0].ID && a.Label == sv.Options[0].Text
			}
			if !found {
				t.Errorf("option %s is not labelled %q: %+v", sv.Options[0].ID, sv.Options[0].Text, withLabels.Answers)
			}
		}
		for q, field := range map[string]string{
			"":                                      "exercise",
			"?exercise=no-such":                     "exercise",
			"?exercise=" + strings.Repeat("x", 500): "exercise",
			"?exercise=" + pred.ID + "&reveal=yes":  "reveal",
		} {
			a := owner.get("/api/classes/" + c.Code + "/predictions" + q)
			var e struct{ Field string }
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != field || len(a.body) > 600 {
				t.Errorf("%.50s: %d %.200s, want 400 naming %s", q, a.status, a.body, field)
			}
		}
		if a := ada.get(url); a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
			t.Errorf("a learner read the class's predictions: %d", a.status)
		}
	})
}

// TestClassPredictionsCountOldLettersWithNew: a first answer kept before
// options were lettered after shuffling (read then as the key "b") and
// one given since (read as "option-b") name the same option, and the
// chart counts them as one bar with the option's text. Before, the old
// one was a bar of its own labelled "b".
func TestClassPredictionsCountOldLettersWithNew(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Old and new")
		const id = "redlock-pause"
		ada, _ := join(t, base, c.Code, "Ada")
		bo, _ := join(t, base, c.Code, "Bo")
		rec, err := st.Record(context.Background(), ada.cookie(web.LearnerCookie), classroom.Attempt{
			Exercise: id, Answer: "b", Parsed: "b", Correct: true, Graded: true, Rule: classroom.RuleDeclining,
		})
		if err != nil {
			t.Fatal(err)
		}
		storetest.KeepAsBeforeAnswerFormat(t, st, rec.ID)
		if _, err := st.Record(context.Background(), bo.cookie(web.LearnerCookie), classroom.Attempt{
			Exercise: id, Answer: "d", Parsed: "option-b", Correct: true, Graded: true, Rule: classroom.RuleDeclining,
		}); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Answers []struct {
				Answer, Label string
				Count         int
			}
		}
		teacher(t, base, c.TeacherKey).get("/api/classes/"+c.Code+"/predictions?exercise="+id).decode(t, &got)
		if len(got.Answers) != 1 || got.Answers[0].Answer != "option-b" || got.Answers[0].Count != 2 || got.Answers[0].Label == "" {
			t.Errorf("the counts: %+v, want one bar, option-b, 2, with its text", got.Answers)
		}
	})
}
