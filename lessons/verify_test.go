package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

func TestVerifyPassesOnTheEmbeddedCatalog(t *testing.T) {
	c := mustCatalog(t)
	rep := c.Verify(context.Background(), 30, 1)
	if !rep.OK() {
		t.Fatalf("verify found problems:\n%s", strings.Join(rep.Problems, "\n"))
	}
	if rep.Exercises < 12 || rep.Checks < 30*rep.Exercises/2 {
		t.Errorf("verify checked %d answers of %d exercises: too few to mean anything", rep.Checks, rep.Exercises)
	}
}

// TestVerifyCatchesABrokenExercise makes sure the self-check can fail: a
// prediction whose formula disagrees with the engine, and a "wrong" answer
// that is in fact right.
func TestVerifyCatchesABrokenExercise(t *testing.T) {
	predict := `id: ex-one
kind: predict
title: Predict
prompt: What is the final total?
scenario:
  preset: nightly-total
  set: {fencing: false}
measure: final_value
answer: "45000"
unit: rupees
wrong:
  - name: on-purpose
    answer: "42000"
    feedback: Wrong on purpose.
solution: It is what the engine says.
`
	c, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predict, "01-lesson.md": goodLesson + "\n```exercise\nid: ex-one\n```\n"}))
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Verify(context.Background(), 1, 1)
	joined := strings.Join(rep.Problems, "\n")
	if !strings.Contains(joined, "the engine measured 42,000") {
		t.Errorf("verify missed a formula that disagrees with the engine:\n%s", joined)
	}
	if !strings.Contains(joined, `the wrong answer "Rs 42,000" passes`) {
		t.Errorf("verify missed a wrong answer that passes:\n%s", joined)
	}
}
