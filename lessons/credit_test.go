package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestChooseSeveralShare: a choose-several's check measures how much of
// the answer is right, max(0, right chosen - wrong chosen) / right
// options, which its partial credit is.
func TestChooseSeveralShare(t *testing.T) {
	c := mustCatalog(t)
	ex, err := c.Exercise("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	if ex.CreditRule() != "partial" {
		t.Fatalf("four-failures is graded by %q, want partial", ex.CreditRule())
	}
	shown, err := ex.Reveal(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	right := strings.Split(shown.Expected, ", ")
	served, err := ex.Serve(0, lessons.Standing{})
	if err != nil {
		t.Fatal(err)
	}
	wrong := ""
	for _, o := range served.Options {
		if !strings.Contains(shown.Expected, o.Key) {
			wrong = o.Key
			break
		}
	}
	if len(right) < 3 || wrong == "" {
		t.Fatalf("four-failures: right %v, a wrong option %q", right, wrong)
	}
	n := float64(len(right))
	for _, tc := range []struct {
		answer string
		want   float64
	}{
		{strings.Join(right, ", "), 1},
		{strings.Join(right[:2], ", "), 2 / n},
		{strings.Join(right[:2], ", ") + ", " + wrong, 1 / n},
		{right[0] + ", " + wrong, 0},
		{wrong, 0},
	} {
		r, err := ex.Check(context.Background(), lessons.Attempt{Exercise: ex.ID, Answer: tc.answer})
		if err != nil {
			t.Fatal(err)
		}
		if r.Share != tc.want {
			t.Errorf("%q: share %v, want %v", tc.answer, r.Share, tc.want)
		}
	}
}

// TestCreditRules: every exercise names a rule, and is worth a point.
func TestCreditRules(t *testing.T) {
	want := map[string]string{lessons.KindNumber: "declining", lessons.KindPredict: "first-try",
		lessons.KindText: "teacher", lessons.KindScenario: "all-or-nothing"}
	for _, ex := range mustCatalog(t).Exercises() {
		rule := ex.CreditRule()
		if w, ok := want[ex.Kind]; ok && rule != w {
			t.Errorf("%s (%s): rule %q, want %q", ex.ID, ex.Kind, rule, w)
		}
		if ex.Points() != 1 {
			t.Errorf("%s: %v points", ex.ID, ex.Points())
		}
	}
}

// TestClassVariants: a class learner's variant comes from the class's
// secret, lies outside every variant a request may name, and still draws
// numbers; requests naming it are refused.
func TestClassVariants(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v := lessons.ClassVariant(secret, "class-1/learner-7")
	if !lessons.IsClassVariant(v) || v <= lessons.MaxVariant {
		t.Fatalf("class variant %d is not in the class space", v)
	}
	if lessons.ClassVariant(secret, "class-1/learner-7") != v {
		t.Fatal("a learner's class variant changes")
	}
	if lessons.ClassVariant(secret, "class-1/learner-8") == v {
		t.Fatal("two learners share a class variant")
	}
	if lessons.ClassVariant([]byte("another class's secret, 32 bytes"), "class-1/learner-7") == v {
		t.Fatal("the variant does not depend on the secret")
	}
	if lessons.IsClassVariant(lessons.VariantFor("class-1/learner-7")) || lessons.IsClassVariant(lessons.MaxVariant) {
		t.Fatal("a practice variant reads as a class variant")
	}
	ex, err := mustCatalog(t).Exercise("outlive-lease")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Serve(v, lessons.Standing{}); err != nil {
		t.Fatalf("serving a class variant: %v", err)
	}
	// A request may not name a class variant (web reads the check's body
	// and refuses it with the same range).
	if err := lessons.CheckPracticeVariant(v); err == nil || !strings.Contains(err.Error(), "variant") {
		t.Fatalf("a check request naming a class variant: %v, want refused", err)
	}
}
