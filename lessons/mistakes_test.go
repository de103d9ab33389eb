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
	r := check(t, c, "four-failures", "option-a, option-b, option-c, option-e")
	if r.Mistake != "option-e" {
		t.Errorf("four-failures a, b, c, e: mistake %q, want option-e", r.Mistake)
	}
	if r = check(t, c, "four-failures", "option-a, option-b"); r.Mistake != "missed-c-d" {
		t.Errorf("four-failures a, b: mistake %q, want missed-c-d", r.Mistake)
	}
	ex, _ := c.Exercise("four-failures")
	if l := ex.MistakeLabel("option-e"); !strings.HasPrefix(l, "chose: The storage turns a write away") {
		t.Errorf("label of option-e: %q", l)
	}
	if r = check(t, c, "long-job-config", `{"lock.lease":"100s"}`); !strings.HasPrefix(r.Mistake, "run-") {
		t.Errorf("a failing scenario answer is named %q, want the run it failed", r.Mistake)
	}
	if r = check(t, c, "long-job-config", `{"lock.lease":"30s"}`); r.Mistake != "no-renewal" {
		t.Errorf("a known wrong scenario answer is named %q, want no-renewal", r.Mistake)
	}
}

// TestOptionsAreShuffledPerVariant: every variant, the notes' own
// included, shows the options in its own order, lettered after shuffling
// (a, b, c... down the list), and each option keeps its stable id and
// its text; the same variant always shows the same order.
func TestOptionsAreShuffledPerVariant(t *testing.T) {
	c := mustCatalog(t)
	for _, ex := range c.Exercises() {
		s0, err := ex.Serve(0, lessons.Standing{})
		if err != nil || len(s0.Options) < 3 {
			continue
		}
		written := map[string]string{}
		for _, o := range s0.Options {
			written[o.ID] = o.Text
		}
		orders := map[string]bool{}
		for v := 0; v <= 12; v++ {
			s, _ := ex.Serve(v, lessons.Standing{})
			var ids []string
			for i, o := range s.Options {
				ids = append(ids, o.ID)
				if o.Key != string(rune('a'+i)) {
					t.Errorf("%s variant %d: option %d is lettered (%s)", ex.ID, v, i+1, o.Key)
				}
				if written[o.ID] != o.Text && !hasParams(ex) {
					t.Errorf("%s variant %d: option %s changed its text", ex.ID, v, o.ID)
				}
			}
			again, _ := ex.Serve(v, lessons.Standing{})
			if !slices.EqualFunc(again.Options, s.Options, func(a, b lessons.Option) bool { return a == b }) {
				t.Fatalf("%s variant %d: the order is not stable", ex.ID, v)
			}
			orders[strings.Join(ids, " ")] = true
		}
		if len(orders) < 3 {
			t.Errorf("%s: 13 variants show only %d orders of its options", ex.ID, len(orders))
		}
	}
}

// rightLetter is the letter a variant's right answer is shown under, for
// a question with one right option.
func rightLetter(t *testing.T, ex *lessons.Exercise, v int) string {
	t.Helper()
	r, err := ex.Reveal(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	return r.Expected
}

// TestTheRightLetterIsSpreadEvenly: over any n consecutive variants of a
// single-answer choice with n options, the right option is shown once
// under each letter; on the notes' own numbers no letter answers half or
// more of the single-answer questions (choices and predictions),
// and the right options of a choose-several do not simply come first.
func TestTheRightLetterIsSpreadEvenly(t *testing.T) {
	c := mustCatalog(t)
	atZero := map[string]int{}
	single := 0
	for _, ex := range c.Exercises() {
		s0, err := ex.Serve(0, lessons.Standing{})
		if err != nil || len(s0.Options) == 0 {
			continue
		}
		if s0.Multiple {
			r := rightLetter(t, ex, 0)
			first := strings.Join(strings.Split("abcdefg", "")[:len(strings.Split(r, ", "))], ", ")
			if r == first {
				t.Errorf("%s: on variant 0 the right options are the first ones (%s)", ex.ID, r)
			}
			continue
		}
		single++
		atZero[rightLetter(t, ex, 0)]++
		if ex.Kind != lessons.KindChoice {
			continue
		}
		n := len(s0.Options)
		for _, start := range []int{0, 1, 517} {
			seen := map[string]int{}
			for v := start; v < start+3*n; v++ {
				seen[rightLetter(t, ex, v)]++
			}
			for i := range n {
				if l := string(rune('a' + i)); seen[l] != 3 {
					t.Errorf("%s: over %d variants from %d, the right option is (%s) %d times, want 3: %v", ex.ID, 3*n, start, l, seen[l], seen)
				}
			}
		}
	}
	if single < 10 {
		t.Fatalf("only %d single-answer questions", single)
	}
	for l, k := range atZero {
		if 2*k >= single {
			t.Errorf("on variant 0, (%s) answers %d of %d single-answer questions: %v", l, k, single, atZero)
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
