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
