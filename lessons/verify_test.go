package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

func TestVerifyPassesOnTheEmbeddedCatalog(t *testing.T) {
	c := mustCatalog(t)
	// A few hundred variants of the cheap kinds: a named mistake that
	// equals the answer on one variant in twenty must be found.
	rep := c.Verify(context.Background(), 200, 1)
	if !rep.OK() {
		t.Fatalf("verify found problems:\n%s", strings.Join(rep.Problems, "\n"))
	}
	if rep.Exercises < 12 || rep.Checks < 200*rep.Exercises/2 {
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

// TestVerifyCatchesAMistakeThatEqualsTheAnswer: a named wrong method that
// gives the right number on some variant (here rate 1, where lag / rate
// equals rate x lag) would mark a learner wrong for a right answer, or
// name a right method as a mistake; the self-check must find it on
// whichever variant it happens.
func TestVerifyCatchesAMistakeThatEqualsTheAnswer(t *testing.T) {
	number := `id: ex-one
kind: number
title: Grants
prompt: "{rate} grants a second, {lag} s of lag: how many in flight?"
params:
  rate: {default: 2, choices: [1, 2, 4]}
  lag: {default: 0.4, choices: [0.2, 0.4]}
answer: rate * lag
tolerance: {abs: 0.005}
unit: count
wrong:
  - name: upside-down
    answer: lag / rate
    feedback: Upside down.
solution: Multiply.
`
	c, err := lessons.Load(folder(map[string]string{"ex-one.yaml": number}))
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Verify(context.Background(), 200, 1)
	joined := strings.Join(rep.Problems, "\n")
	if !strings.Contains(joined, `the wrong answer "lag / rate" equals the right one`) {
		t.Errorf("verify missed a named mistake that equals the answer on a variant with rate 1:\n%s", joined)
	}
}
