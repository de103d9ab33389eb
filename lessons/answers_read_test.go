package lessons_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestAnswersReadAsPeopleWriteThem: scientific notation, rates with
// qps, rps or TPS, bounds in words ("up to 15 minutes", "<= 20 s"), a
// percentage where a factor is asked (4500% for 45x), and a choice named
// in a phrase around its plain word ("0 rows affected.", "a fencing
// token") are read and graded right.
func TestAnswersReadAsPeopleWriteThem(t *testing.T) {
	c := mustCatalog(t)
	for _, tc := range []struct{ id, answer string }{
		{"crash-wait", "4.5e1"},
		{"crash-wait", "4.5E+1 times"},
		{"crash-wait", "4500%"},
		{"crash-wait", "4,500 %"},
		{"lock-writes-per-second", "2000 qps"},
		{"lock-writes-per-second", "2,000 rps"},
		{"lock-writes-per-second", "2000 TPS"},
		{"lock-writes-per-second", "2e3 writes/s"},
		{"lock-writes-per-second", "2000 ops/s"},
		{"crash-wait-long", "up to 15 minutes"},
		{"crash-wait-long", "at most 900 s"},
		{"crash-wait-short", "<= 20 s"},
		{"crash-wait-short", "≤20s"},
		{"crash-wait-short", "up to 20 seconds"},
		{"stale-token-write", "0 rows affected"},
		{"stale-token-write", "0 rows affected."},
		{"stale-token-write", "It is refused."},
		{"redlock-pause", "a fencing token"},
		{"redlock-pause", "A fencing token."},
		{"redlock-pause", "option b"},
	} {
		r := check(t, c, tc.id, tc.answer)
		if !r.Correct || r.FormatError != "" {
			t.Errorf("%s: %q is not read as the right answer: %q %q", tc.id, tc.answer, r.FormatError, r.Feedback)
		}
	}
	// A percentage is still a share where a count is asked.
	if r := check(t, c, "outlive-lease", "1%"); r.Correct || r.Mistake == "" {
		t.Errorf("outlive-lease 1%%: %+v", r)
	}
	// Letters typed with spaces are still several letters.
	if r := check(t, c, "four-failures", "a c"); strings.Count(r.Read, "option-") != 2 {
		t.Errorf("four-failures \"a c\" read as %q", r.Read)
	}
	// A phrase that says the opposite is not taken for the plain word.
	if r := check(t, c, "stale-token-write", "not refused"); r.Correct {
		t.Errorf("\"not refused\" is graded right")
	}
}

// TestAnswersThatMayMeanAnotherUnitAreAskedBack: a number that would be
// right in a neighbouring unit of the same quantity (30000 where seconds
// are asked and 30 s is right), and a fraction that may be a count (2/5,
// "two of five" where a count is asked), get a question back that costs
// no try, not a wrong mark.
func TestAnswersThatMayMeanAnotherUnitAreAskedBack(t *testing.T) {
	c := mustCatalog(t)
	for _, tc := range []struct{ id, answer, says string }{
		{"crash-wait-predict", "30000", "ms"},
		{"majority-size", "2/5", "2 of 5"},
		{"majority-size", "two of five", "2 of 5"},
		{"majority-size", "2 out of 5", "2 of 5"},
	} {
		r := check(t, c, tc.id, tc.answer)
		if r.Graded || r.Correct || r.FormatError == "" || !strings.Contains(r.FormatError, tc.says) {
			t.Errorf("%s: %q is not asked back (%q): graded %v, %q", tc.id, tc.answer, tc.says, r.Graded, r.FormatError)
		}
	}
	// The unit the question gives, or a share that is the answer, is read.
	if r := check(t, c, "crash-wait-predict", "30"); !r.Correct {
		t.Errorf("crash-wait-predict 30: %+v", r)
	}
	if r := check(t, c, "failover-grants", "4/5"); !r.Correct {
		t.Errorf("failover-grants 4/5: %+v", r)
	}
}

// TestLongAnswersAreQuotedOnce: an answer of 2,000 characters, of any
// kind, gets a message that quotes at most 40 characters of it, once,
// and the result repeats nothing more of it.
func TestLongAnswersAreQuotedOnce(t *testing.T) {
	c := mustCatalog(t)
	answers := []string{
		strings.Repeat("7", 2000),
		"45 " + strings.Repeat("z", 1997),
		strings.Repeat("forty two ", 200),
		"1.234" + strings.Repeat("5", 1995),
		strings.Repeat("a, ", 666) + "ab",
		`{"fencing":"` + strings.Repeat("q", 1984) + `"}`,
		`{"` + strings.Repeat("q", 1993) + `":1}`,
	}
	for _, ex := range c.Exercises() {
		if ex.Kind == lessons.KindText {
			continue // an open answer is kept whole, for the teacher
		}
		for _, a := range answers {
			r := check(t, c, ex.ID, a)
			all := r.FormatError + " " + r.Feedback + " " + r.Read
			if len(all) > 600 {
				t.Errorf("%s: %d bytes back for a %d-character answer: %.120q", ex.ID, len(all), len(a), all)
			}
			for _, piece := range []string{a[:41], a[len(a)-41:]} {
				if strings.Contains(all, piece) {
					t.Errorf("%s: more than 40 characters of the answer are quoted: %.120q", ex.ID, all)
				}
			}
		}
	}
}
