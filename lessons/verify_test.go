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
	if rep.Exercises < 12 || rep.Variants < 1 || rep.Distinct < 15*rep.Exercises || rep.Checks < 2*rep.Distinct {
		t.Errorf("verify checked %d answers on %d distinct variants of %d exercises: too few to mean anything", rep.Checks, rep.Distinct, rep.Exercises)
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

// TestVerifyFindsAPredictionGivenAway: a heading that names the outcome
// (it is listed at the top of the page), a paragraph above the question
// that states it, and a preset's title shown before the prediction are
// each reported, naming the phrase.
func TestVerifyFindsAPredictionGivenAway(t *testing.T) {
	predict := `id: ex-one
kind: predict
title: Predict
prompt: How many writes land?
scenario:
  preset: paused-holder
  set: {fencing: false}
measure: stale_writes_accepted
answer: "1"
unit: count
reveals: ["writes over it"]
solution: One.
`
	lesson := func(body string) string {
		return strings.Replace(goodLesson, "## Section\n\n", body, 1)
	}
	gate := "```playground\npreset: paused-holder\nset: {fencing: false}\npredict: ex-one\ncaption: It lands.\n```\n"
	for _, tc := range []struct{ name, body, want string }{
		{"clean", "## Section\n\nCommit first.\n\n" + gate, ""},
		{"heading after it", "## Section\n\n" + gate + "\n## client-1 writes over it\n\nText.\n", "writes over it"},
		{"paragraph above", "## Section\n\nclient-1 wakes and writes over it.\n\n" + gate, "writes over it"},
		{"preset title", "## A paused holder writes late\n\n" + gate, "A paused holder writes late"},
		// A prediction placed by a marker, with its playground further
		// down, is read the same way.
		{"marker, clean", "## Section\n\nCommit first.\n\n```exercise\nid: ex-one\n```\n\nclient-1 writes over it.\n", ""},
		{"marker, paragraph above", "## Section\n\nclient-1 wakes and writes over it.\n\n```exercise\nid: ex-one\n```\n", "writes over it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The lesson's own playground stays, after the gated one.
			c, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predict, "01-lesson.md": lesson(tc.body)}))
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, p := range c.Verify(context.Background(), 0, 0).Problems {
				if strings.Contains(p, "gives it away") {
					found = append(found, p)
				}
			}
			switch {
			case tc.want == "" && len(found) > 0:
				t.Errorf("a clean lesson is reported: %q", found)
			case tc.want != "" && (len(found) == 0 || !strings.Contains(strings.Join(found, "\n"), tc.want)):
				t.Errorf("want a report naming %q, got %q", tc.want, found)
			}
		})
	}
}
