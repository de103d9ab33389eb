package lessons_test

import (
	"strings"
	"testing"
)

// TestModelAnswerIsRenderedOnTheServer: a submitted open answer comes back
// with its model answer rendered (model_answer_html), so no page renders
// the Markdown itself: its code spans are code, its paragraphs paragraphs.
func TestModelAnswerIsRenderedOnTheServer(t *testing.T) {
	c := mustCatalog(t)
	r := check(t, c, "sms-twice", "Give each reminder an idempotency key so the provider drops repeats.")
	if !strings.HasPrefix(strings.TrimSpace(r.ModelAnswerHTML), "<p>") {
		t.Fatalf("the model answer is not rendered: %q", r.ModelAnswerHTML)
	}
	if strings.Contains(r.ModelAnswer, "`") && !strings.Contains(r.ModelAnswerHTML, "<code>") {
		t.Errorf("the model answer's code spans are not rendered: %q", r.ModelAnswerHTML)
	}
	if strings.Contains(r.ModelAnswerHTML, "`") {
		t.Errorf("Markdown is left in the rendered model answer: %q", r.ModelAnswerHTML)
	}
}
