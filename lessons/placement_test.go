package lessons_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

const predictExercise = `id: ex-one
kind: predict
title: Predict
prompt: Does the stale write land?
scenario:
  preset: paused-holder
  set: {fencing: false}
options:
  - key: a
    text: It lands.
    when: stale_writes_accepted >= 1
  - key: b
    text: It is refused.
    when: stale_writes_accepted == 0
solution: It lands.
`

// TestPredictionsComeBeforeTheirExplanation: a prediction must be placed
// in the text, with an exercise marker or as a playground's prediction;
// left for the end of the lesson it would come after the explanation.
func TestPredictionsComeBeforeTheirExplanation(t *testing.T) {
	_, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predictExercise}))
	if err == nil || !strings.Contains(err.Error(), `01-lesson.md:7: the prediction "ex-one" must come before the text that explains its outcome`) {
		t.Fatalf("an unplaced prediction loaded: %v", err)
	}
	marked := strings.Replace(goodLesson, "## Section", "```exercise\nid: ex-one\n```\n\n## Section", 1)
	c, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predictExercise, "01-lesson.md": marked}))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := c.Lesson("lesson")
	if len(l.Segments) != 2 || l.Segments[0].Exercise != "ex-one" || !strings.Contains(l.Segments[1].HTML, "Section") {
		t.Fatalf("segments %+v: want the exercise before the section", l.Segments)
	}
	if strings.Contains(l.HTML, "lesson-exercise") || len(l.Inline) != 1 {
		t.Errorf("the plain HTML keeps a slot, or Inline is %v", l.Inline)
	}
	if _, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predictExercise, "01-lesson.md": marked + "\n```exercise\nid: ex-one\n```\n"})); err == nil || !strings.Contains(err.Error(), "placed in the text twice") {
		t.Errorf("an exercise placed twice loaded: %v", err)
	}
	if _, err := lessons.Load(folder(map[string]string{"01-lesson.md": goodLesson + "\n```exercise\nid: nope\n```\n"})); err == nil || !strings.Contains(err.Error(), `exercise "nope" is placed in the text but not listed`) {
		t.Errorf("a marker for another exercise loaded: %v", err)
	}
	if _, err := lessons.Load(folder(map[string]string{"01-lesson.md": goodLesson + "\n```exercise\nname: ex-one\n```\n"})); err == nil || !strings.Contains(err.Error(), "exercise marker: write it as") {
		t.Errorf("a malformed marker loaded: %v", err)
	}
}

// TestAPlaygroundPredictionRunsItsScenario: a playground opened by a
// prediction shows exactly the scenario predicted, and keeps its caption
// out of the page.
func TestAPlaygroundPredictionRunsItsScenario(t *testing.T) {
	gated := strings.Replace(goodLesson, "caption: Run it.", "set: {fencing: false}\npredict: ex-one\ncaption: The stale write lands.", 1)
	c, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predictExercise, "01-lesson.md": gated}))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := c.Lesson("lesson")
	if strings.Contains(l.HTML, "The stale write lands") {
		t.Error("a gated playground's caption is in the page")
	}
	if !strings.Contains(l.HTML, `data-predict="ex-one"`) || l.Segments[0].Exercise != "ex-one" {
		t.Errorf("the prediction is not placed before its playground: %+v", l.Segments)
	}
	if got := c.GateCaption("ex-one"); got != "The stale write lands." {
		t.Errorf("GateCaption = %q", got)
	}
	mismatch := strings.Replace(gated, "set: {fencing: false}", "set: {fencing: true}", 1)
	if _, err := lessons.Load(folder(map[string]string{"ex-one.yaml": predictExercise, "01-lesson.md": mismatch})); err == nil || !strings.Contains(err.Error(), "its scenario is not the playground's") {
		t.Errorf("a prediction of another scenario gated the playground: %v", err)
	}
}
