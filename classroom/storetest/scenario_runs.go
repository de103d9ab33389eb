package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testNoteRun: a learner's attempts at a prediction after they ran its
// scenario are marked AfterRun, the earlier ones and other learners' not;
// Attempts and attempts.csv say so; noting the same run again changes
// nothing; the ids are bounded; a closed class and an unknown session
// are refused.
func testNoteRun(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Runs")
	code, key := nc.Class.Code, nc.TeacherKey
	ada := mustJoin(t, s, code, "Ada")
	bo := mustJoin(t, s, code, "Bo")
	predict := func(tok, ex string) *classroom.Attempt {
		return mustRecord(t, s, tok, classroom.Attempt{Exercise: ex, Answer: "a", Graded: true, Rule: classroom.RuleFirstTry})
	}

	// Bo predicts first, then runs it: his prediction is not marked.
	if a := predict(bo.Token, "who-writes"); a.AfterRun {
		t.Fatalf("a prediction before any run is marked after a run: %+v", a)
	}
	if err := s.NoteRun(ctx, bo.Token, []string{"who-writes"}); err != nil {
		t.Fatal(err)
	}
	// Ada runs two predictions' scenario, twice, then predicts one.
	for range 2 {
		if err := s.NoteRun(ctx, ada.Token, []string{"who-writes", "which-token"}); err != nil {
			t.Fatal(err)
		}
	}
	if a := predict(ada.Token, "who-writes"); !a.AfterRun {
		t.Fatalf("Ada's prediction after running its scenario: %+v, want after_run", a)
	}
	if a := predict(ada.Token, "other"); a.AfterRun {
		t.Fatalf("an exercise whose scenario Ada did not run is marked: %+v", a)
	}
	if a := predict(bo.Token, "who-writes"); !a.AfterRun {
		t.Fatalf("Bo's second try, after his run: %+v, want after_run", a)
	}

	all, err := s.Attempts(ctx, code, key, "who-writes")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range all {
		got = append(got, fmt.Sprintf("%s:%d:%v", a.LearnerName, a.Try, a.AfterRun))
	}
	if strings.Join(got, " ") != "Bo:1:false Ada:1:true Bo:2:true" {
		t.Errorf("Attempts reads %v", got)
	}
	var csv strings.Builder
	if err := classroom.WriteAttemptsCSV(&csv, all); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if !strings.HasSuffix(lines[0], ",late,after_run") || !strings.HasSuffix(lines[1], ",0") || !strings.HasSuffix(lines[2], ",1") {
		t.Errorf("attempts.csv:\n%s", csv.String())
	}

	// Bounds and refusals.
	many := make([]string, classroom.MaxNotedRuns+1)
	for i := range many {
		many[i] = fmt.Sprint("ex-", i)
	}
	if err := s.NoteRun(ctx, ada.Token, many); classroom.ErrorCode(err) != classroom.EINVALID || !strings.Contains(err.Error(), "exercises") {
		t.Errorf("%d exercises: %v", len(many), err)
	}
	if err := s.NoteRun(ctx, ada.Token, []string{strings.Repeat("x", classroom.MaxExerciseLen+1)}); classroom.ErrorCode(err) != classroom.EINVALID {
		t.Errorf("a too long exercise id: %v", err)
	}
	if err := s.NoteRun(ctx, "no such session", []string{"who-writes"}); classroom.ErrorCode(err) != classroom.EUNAUTHORIZED {
		t.Errorf("an unknown session: %v", err)
	}
	if _, err := s.SetArchived(ctx, code, key, true); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRun(ctx, bo.Token, []string{"which-token"}); err == nil {
		t.Error("a closed class noted a run")
	}
}
