package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestACheckNamesNoOptionKey: a learner who picks two of four-failures'
// four right options is told "not quite" and how many they have, and
// nothing in the answer names an option by its file key: the read gives
// the ids the page served, and the mistake, which was "missed-c-d" (the
// right options left out, by key), is not sent. The class keeps both as
// they were, for the teacher's mistakes view.
func TestACheckNamesNoOptionKey(t *testing.T) {
	st := openSQLite(t)
	base := startClass(t, st)
	ff, err := catalog(t).Exercise("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := json.Marshal(map[string]any{"answer": ff.PublicOptionID("a") + ", " + ff.PublicOptionID("b")})

	c := createClass(t, base, "Keys")
	ada, _ := join(t, base, c.Code, "Ada")
	var res map[string]any
	for who, p := range map[string]*person{"a visitor": newPerson(t, base), "a class learner": ada} {
		a := p.postJSON("/api/exercises/four-failures/check", string(answer))
		wantStatus(t, a, http.StatusOK, who+"'s check")
		a.decode(t, &res)
		if res["correct"] != false || !strings.Contains(res["feedback"].(string), "2 of the 4") {
			t.Fatalf("%s's two of four: %s", who, a.body)
		}
		if strings.Contains(a.body, "option-c") || strings.Contains(a.body, "option-d") || strings.Contains(a.body, "missed-") {
			t.Errorf("%s is told the right options left out, by their keys: %s", who, a.body)
		}
		if want := ff.PublicOptionID("a") + ", " + ff.PublicOptionID("b"); res["read"] != want {
			t.Errorf("%s's answer is read back as %v, want the served ids %s", who, res["read"], want)
		}
	}

	all, err := st.Attempts(context.Background(), c.Code, c.TeacherKey, "four-failures")
	if err != nil || len(all) != 1 {
		t.Fatalf("the class keeps %d attempts, %v", len(all), err)
	}
	if all[0].Mistake != "missed-c-d" || all[0].Parsed != "option-a, option-b" {
		t.Errorf("the class keeps mistake %q, read %q: want missed-c-d and the keys, for the teacher", all[0].Mistake, all[0].Parsed)
	}
}
