package classroom_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// The store suite checks both exports of a real class; this covers the
// cases a class rarely produces.
func TestCSVEdges(t *testing.T) {
	d := &classroom.Dashboard{
		Learners:  []classroom.Learner{{ID: 1, Name: "\tTab"}, {ID: 2, Name: " lead space"}, {ID: 3, Name: "multi\nline"}},
		Exercises: []string{"-neg"},
		Progress:  []classroom.Progress{{LearnerID: 2, Exercise: "-neg", Tries: 1, Correct: true, TriesToCorrect: 1, Solved: true, Score: 1}},
	}
	var b strings.Builder
	if err := classroom.WriteWideCSV(&b, d, nil); err != nil {
		t.Fatal(err)
	}
	want := "learner,'-neg,score\n'\tTab,,0\n\" lead space\",1,1\n\"multi\nline\",,0\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	if err := classroom.WriteProgressCSV(&b, &classroom.Dashboard{}, nil); err != nil || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("an empty class: %q %v", b.String(), err)
	}
}

// TestProgressCSVSaysRevealedUnderLate: a learner who gave up and then
// answered after the deadline is "late" in every view's status, and
// progress.csv's revealed column still says the answer was shown; a
// solved exercise looked at afterwards, and a submitted open answer, are
// not reveals.
func TestProgressCSVSaysRevealedUnderLate(t *testing.T) {
	d := &classroom.Dashboard{
		Learners:  []classroom.Learner{{ID: 1, Name: "Ada"}, {ID: 2, Name: "Bo"}, {ID: 3, Name: "Cy"}},
		Exercises: []string{"several"},
		Progress: []classroom.Progress{
			{LearnerID: 1, Exercise: "several", Tries: 2, Score: 0.5, GaveUp: true, Revealed: true, Late: true},
			{LearnerID: 2, Exercise: "several", Tries: 1, Correct: true, Solved: true, Score: 1, GaveUp: true, Revealed: true},
			{LearnerID: 3, Exercise: "several", Tries: 1, Open: true, Revealed: true},
		},
	}
	var b strings.Builder
	if err := classroom.WriteProgressCSV(&b, d, nil); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	for i, want := range []string{"1,late", "0,solved", "0,submitted"} {
		if !strings.HasSuffix(rows[i+1], ","+want) {
			t.Errorf("%s: %q, want revealed,status %s", d.Learners[i].Name, rows[i+1], want)
		}
	}
}
