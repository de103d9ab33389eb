package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// brokenChoiceKey is a copy of the lessons whose redlock-pause names the
// wrong option right (c, not b): the key a teacher later fixes.
func brokenChoiceKey(t *testing.T) *lessons.Catalog {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../lessons/content")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "redlock-pause.yaml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\ncorrect: [b]\n") {
		t.Fatal("redlock-pause.yaml no longer says correct: [b]")
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "\ncorrect: [b]\n", "\ncorrect: [c]\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	broken, err := lessons.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return broken
}

// letterOf is the letter the option with stable id id ("option-b") is
// shown under on a variant, by the catalog's key (where the right option
// is placed decides the order).
func letterOf(t *testing.T, cat *lessons.Catalog, ex string, variant int, id string) string {
	t.Helper()
	e, err := cat.Exercise(ex)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Serve(variant, lessons.Standing{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range s.Options {
		if o.Stable == id {
			return o.Key
		}
	}
	t.Fatalf("%s has no option %s", ex, id)
	return ""
}

// TestRegradeReadsChoiceAnswersAsMeant: redlock-pause's key wrongly says
// option c; the class answers it; the key is fixed (option b) and the
// teacher regrades. Ada's attempt was kept before options were lettered
// after shuffling: she typed "b", which then meant option b, and it must
// earn her full marks now, not be read as whatever her variant shows
// under (b) today. Bo answered since: he typed the letter his variant
// showed option b under, which must not be read as an old key, nor by the
// letters the fixed key reorders. Every view then agrees on their scores.
// Before, the regrade read both as typed with today's letters.
func TestRegradeReadsChoiceAnswersAsMeant(t *testing.T) {
	const id = "redlock-pause"
	broken := brokenChoiceKey(t)
	fixed := catalog(t)
	eachStore(t, func(t *testing.T, st classroom.Store) {
		tsBroken, _ := startServer(t, web.Config{Classroom: st, Lessons: broken})
		c := createClass(t, tsBroken.URL, "Regrade choices")
		// Learners whose letters tell the readings apart: for Ada, the
		// option the fixed key's variant shows under (b) is not option b;
		// for Bo, the letter he was shown for option b is not "b", and
		// reads as another option with the fixed key's letters.
		var ada, bo *person
		var adaID int64
		var boLetter, adaName, boName string
		for i := 0; i < 60 && (ada == nil || bo == nil); i++ {
			name := fmt.Sprintf("L%02d", i)
			p, lid := join(t, tsBroken.URL, c.Code, name)
			v := classVariant(t, st, c, lid)
			if ada == nil && letterOf(t, fixed, id, v, "option-b") != "b" {
				ada, adaID, adaName = p, lid, name
				continue
			}
			if l := letterOf(t, broken, id, v, "option-b"); bo == nil && l != "b" && letterOf(t, fixed, id, v, "option-b") != l {
				bo, boLetter, boName = p, l, name
			}
		}
		if ada == nil || bo == nil {
			t.Fatal("no learners whose letters tell the readings apart among 60")
		}
		// Ada's attempt as the code before the shuffle kept it: "b" was
		// option b, which the broken key graded wrong.
		rec, err := st.Record(context.Background(), ada.cookie(web.LearnerCookie), classroom.Attempt{
			Exercise: id, Variant: classVariant(t, st, c, adaID), Answer: "b", Graded: true, Parsed: "b",
			Mistake: "option-b", Rule: classroom.RuleDeclining,
		})
		if err != nil {
			t.Fatal(err)
		}
		storetest.KeepAsBeforeAnswerFormat(t, st, rec.ID)
		if res := answerAs(t, bo, id, boLetter); res["correct"] != false {
			t.Fatalf("the broken key takes option b: %v", res)
		}

		var changes []classroom.ScoreChange
		tsFixed, _ := startServer(t, web.Config{Classroom: st, OnScoreChange: func(_ context.Context, ch classroom.ScoreChange) {
			changes = append(changes, ch)
		}})
		owner := teacher(t, tsFixed.URL, c.TeacherKey)
		a := owner.postJSON("/api/classes/"+c.Code+"/regrade", `{"exercise":"`+id+`"}`)
		wantStatus(t, a, http.StatusOK, "regrade")
		rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/attempts.csv").body)
		got := map[string]string{}
		for _, r := range rows[1:] {
			got[r[0]] = r[4] + " read " + r[5] + ": " + r[6] + " " + r[7]
		}
		if want := "b read option-b: right 1"; got[adaName] != want {
			t.Errorf("Ada's kept answer after the regrade: %q, want %q", got[adaName], want)
		}
		if want := boLetter + " read option-b: right 1"; got[boName] != want {
			t.Errorf("Bo's answer after the regrade: %q, want %q", got[boName], want)
		}
		if len(changes) != 2 {
			t.Errorf("score changes passed on: %+v, want Ada's and Bo's", changes)
		}
		agreed := viewsAgree(t, owner, c.Code, map[string]*person{adaName: ada, boName: bo})
		if agreed[[2]string{adaName, id}] != "1" || agreed[[2]string{boName, id}] != "1" {
			t.Errorf("the views agree on %v, want 1 for both", agreed)
		}
	})
}
