package lessons_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestMistakesAreNamedTheSameOnEveryVariant: one misconception gets one
// name however it is typed and whatever the learner's numbers, so a class
// can count it; the answer is read the same way however it is written.
func TestMistakesAreNamedTheSameOnEveryVariant(t *testing.T) {
	c := mustCatalog(t)
	ctx := context.Background()
	ex, _ := c.Exercise("outlive-lease")
	for v := 0; v < 5; v++ {
		r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: "1%", Variant: v})
		if err != nil {
			t.Fatal(err)
		}
		if r.Correct || !r.Graded || r.Mistake == "" {
			t.Fatalf("variant %d: 1%% for a count: %+v", v, r)
		}
	}
	for _, typed := range []string{"4950", "4,950 runs", "4 950", "about 4,950"} {
		r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: typed})
		if err != nil {
			t.Fatal(err)
		}
		if r.Mistake != "the-fast-share" || r.Read != "4,950" {
			t.Errorf("%q: mistake %q read %q, want the-fast-share and 4,950", typed, r.Mistake, r.Read)
		}
	}
	// The same slip on other numbers: variant after variant, the fast share
	// of that variant's runs is the same named mistake.
	for v := 1; v <= 5; v++ {
		s, _ := ex.Serve(v, lessons.Standing{})
		fast := fastShare(t, s.PromptText)
		r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: formatPlain(fast), Variant: v})
		if err != nil {
			t.Fatal(err)
		}
		if r.Mistake != "the-fast-share" {
			t.Errorf("variant %d: %v runs (the fast share) is named %q", v, fast, r.Mistake)
		}
	}
	if got := ex.MistakeLabel("the-fast-share"); got == "" || got == "the-fast-share" {
		t.Errorf("the mistake has no label for a teacher: %q", got)
	}
}

// fastShare reads "N% of runs finish ... There are M runs" from the
// outlive-lease prompt and returns N% of M.
func fastShare(t *testing.T, prompt string) float64 {
	t.Helper()
	var pct, runs float64
	words := strings.Fields(strings.NewReplacer("**", "", ",", "").Replace(prompt))
	for i, w := range words {
		if strings.HasSuffix(w, "%") && pct == 0 {
			if _, err := fmtSscan(strings.TrimSuffix(w, "%"), &pct); err != nil {
				t.Fatal(err)
			}
		}
		if w == "runs" && i > 0 && words[i-1] != "of" {
			var n float64
			if _, err := fmtSscan(words[i-1], &n); err == nil {
				runs = n
			}
		}
	}
	if pct == 0 || runs == 0 {
		t.Fatalf("could not read the numbers of %q", prompt)
	}
	return runs * pct / 100
}

// TestChoiceMistakesFollowTheirOption: a wrong option is named by its
// key, which follows the option wherever a variant shuffles it.
func TestChoiceMistakesFollowTheirOption(t *testing.T) {
	c := mustCatalog(t)
	r := check(t, c, "four-failures", "a, b, c, e")
	if r.Mistake != "option-e" {
		t.Errorf("four-failures a, b, c, e: mistake %q, want option-e", r.Mistake)
	}
	if r = check(t, c, "four-failures", "a, b"); r.Mistake != "missed-c-d" {
		t.Errorf("four-failures a, b: mistake %q, want missed-c-d", r.Mistake)
	}
	ex, _ := c.Exercise("four-failures")
	if l := ex.MistakeLabel("option-e"); !strings.HasPrefix(l, "chose (e): The storage refuses") {
		t.Errorf("label of option-e: %q", l)
	}
	if r = check(t, c, "long-job-config", `{"lock.lease":"100s"}`); !strings.HasPrefix(r.Mistake, "run-") {
		t.Errorf("a failing scenario answer is named %q, want the run it failed", r.Mistake)
	}
	if r = check(t, c, "long-job-config", `{"lock.lease":"30s"}`); r.Mistake != "no-renewal" {
		t.Errorf("a known wrong scenario answer is named %q, want no-renewal", r.Mistake)
	}
}

// TestOptionsAreShuffledPerVariant: variants show the options in
// different orders, each keeping its key and text; the notes' variant
// keeps the written order.
func TestOptionsAreShuffledPerVariant(t *testing.T) {
	c := mustCatalog(t)
	for _, ex := range c.Exercises() {
		s0, err := ex.Serve(0, lessons.Standing{})
		if err != nil || len(s0.Options) < 3 {
			continue
		}
		written := map[string]string{}
		var keys0 []string
		for _, o := range s0.Options {
			written[o.Key] = o.Text
			keys0 = append(keys0, o.Key)
		}
		if !slices.IsSorted(keys0) {
			t.Errorf("%s: variant 0 is not in the written order: %v", ex.ID, keys0)
		}
		orders := map[string]bool{}
		for v := 1; v <= 12; v++ {
			s, _ := ex.Serve(v, lessons.Standing{})
			var keys []string
			for _, o := range s.Options {
				keys = append(keys, o.Key)
				if written[o.Key] != o.Text && !hasParams(ex) {
					t.Errorf("%s variant %d: option %s changed its text", ex.ID, v, o.Key)
				}
			}
			again, _ := ex.Serve(v, lessons.Standing{})
			if !slices.EqualFunc(again.Options, s.Options, func(a, b lessons.Option) bool { return a == b }) {
				t.Fatalf("%s variant %d: the order is not stable", ex.ID, v)
			}
			orders[strings.Join(keys, "")] = true
		}
		if len(orders) < 3 {
			t.Errorf("%s: 12 variants show only %d orders of its options", ex.ID, len(orders))
		}
	}
}

func hasParams(ex *lessons.Exercise) bool {
	a, _ := ex.Serve(0, lessons.Standing{})
	b, _ := ex.Serve(7, lessons.Standing{})
	return a.PromptText != b.PromptText
}

// TestServedExercisesGiveNothingAway: the data an exercise is served as
// holds no answer, key, model answer or solution, for any exercise.
func TestServedExercisesGiveNothingAway(t *testing.T) {
	c := mustCatalog(t)
	for _, ex := range c.Exercises() {
		for _, v := range []int{0, 1, 77} {
			s, err := ex.Serve(v, lessons.Standing{Tries: 2})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(s)
			var fields map[string]any
			_ = json.Unmarshal(raw, &fields)
			for _, k := range []string{"answer", "correct", "solution", "model_answer", "rubric", "expected", "when", "solution_answer", "wrong"} {
				if _, ok := fields[k]; ok {
					t.Errorf("%s variant %d: served with %q", ex.ID, v, k)
				}
			}
			md, html, _ := ex.Solution(v)
			for _, secret := range []string{md, html} {
				if len(secret) > 30 && strings.Contains(string(raw), secret[:30]) {
					t.Errorf("%s variant %d: the served exercise holds its solution", ex.ID, v)
				}
			}
			if s.Earned {
				t.Errorf("%s: two wrong tries earned the solution", ex.ID)
			}
		}
	}
}

// TestAnswersThatCouldMeanTwoThingsAreAskedBack: an ambiguous number, a
// bare time where the unit decides, and a wide range cost no try and give
// nothing away.
func TestAnswersThatCouldMeanTwoThingsAreAskedBack(t *testing.T) {
	c := mustCatalog(t)
	for _, tt := range []struct{ id, answer, says string }{
		{"lock-writes-per-second", "2.000", "Did you mean 2 or 2,000?"},
		{"crash-wait-long", "15", "seconds or minutes"},
		{"outlive-lease", "10-100", "range"},
		{"nightly-total-predict", "42.000", "Did you mean"},
	} {
		r := check(t, c, tt.id, tt.answer)
		if r.Graded || r.FormatError == "" || !strings.Contains(r.FormatError, tt.says) {
			t.Errorf("%s %q: want a question saying %q, got %+v", tt.id, tt.answer, tt.says, r)
		}
		if r.Timeline != nil || r.Expected != "" || len(r.Hints) > 0 || r.Mistake != "" {
			t.Errorf("%s %q: a question back showed something: %+v", tt.id, tt.answer, r)
		}
	}
	for _, tt := range []struct{ id, answer string }{
		{"crash-wait-long", "15:00"},
		{"crash-wait-long", "15 minutes"},
		{"crash-wait", "×45"},
		{"crash-wait", "45-fold"},
		{"crash-wait", "x45"},
		{"failover-grants", "4/5"},
		{"failover-grants", "0,8"},
		{"lock-writes-per-second", "2 000"},
		{"nightly-total-predict", "Rs 42,000/-"},
		{"nightly-total-predict", "42k"},
		{"outlive-lease", "49.5-50.5"},
	} {
		if r := check(t, c, tt.id, tt.answer); !r.Correct {
			t.Errorf("%s %q graded wrong: %+v", tt.id, tt.answer, r)
		}
	}
	r := check(t, c, "outlive-lease", "1%")
	if r.Correct || r.Mistake != "the-percentage" || !strings.Contains(r.Feedback, "share in percent") {
		t.Errorf("1%% for a count: %+v", r)
	}
	r = check(t, c, "outlive-lease", "99%")
	if r.Correct || r.Mistake != lessons.MistakePercent || !strings.Contains(r.Feedback, "share, not a count") {
		t.Errorf("99%% for a count: %+v", r)
	}
}

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }

func formatPlain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
