package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// TestGradesPanelSaysWhatItCouldNotMatch: scores of the course queued
// before an upgrade that could be matched to no class
// (LTIGrades.Unmatched) are said on the panel, in its JSON for grades.js
// and on the page, as counted nowhere and not sent again; with none, the
// line is not there.
func TestGradesPanelSaysWhatItCouldNotMatch(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	render := func(v *gradesView) string {
		t.Helper()
		var b strings.Builder
		p := Page{Asset: func(name string) string { return "/static/" + name }}
		if err := gradesCard(p, v).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	v := gradesOf(&classroom.LTIGrades{Course: "Distributed Systems 101", Sent: 3, Unmatched: 2}, now)
	const want = "2 older scores of this course, queued before an upgrade, could not be matched to a class: not counted above, and not sent again by Send again"
	if v.UnmatchedText != want {
		t.Errorf("the panel's line: %q, want %q", v.UnmatchedText, want)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"unmatched":2`) || !strings.Contains(string(js), `"unmatched_text":"2 older scores`) {
		t.Errorf("the panel's JSON for grades.js: %s", js)
	}
	if html := render(v); !strings.Contains(html, `data-testid="grades-unmatched">`+want+`</li>`) {
		t.Errorf("the page's panel does not show the line:\n%s", html)
	}

	v = gradesOf(&classroom.LTIGrades{Course: "Distributed Systems 101", Sent: 3}, now)
	if v.UnmatchedText != "" {
		t.Errorf("with none unmatched, the panel says %q", v.UnmatchedText)
	}
	if html := render(v); !strings.Contains(html, `data-testid="grades-unmatched" hidden>`) {
		t.Errorf("with none unmatched, the page's line is not hidden:\n%s", html)
	}
}
