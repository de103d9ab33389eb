package web_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// TestE2ESettingsFormKeepsAnotherTabsChange: the dashboard's settings
// form follows a change saved in another tab while the teacher has not
// touched it; once they have, it says the settings changed rather than
// redraw over their change, wherever the focus is; a save made against
// the settings it showed is refused, the other tab's change stays, and
// the form then shows it, so the teacher's change redone lands on top of
// it. A learner's "last active" tooltip is
// in the teacher's own time from the first draw, as after a live redraw.
func TestE2ESettingsFormKeepsAnotherTabsChange(t *testing.T) {
	st := openSQLite(t)
	b := startBrowserWith(t, web.Config{Classroom: st}) // skips without PLAYGROUND_E2E=1 or a chromium
	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	ls := cat.Lessons()
	first, second := ls[0], ls[1]
	ctx := context.Background()
	nc, err := st.CreateClass(ctx, "Co-taught")
	if err != nil {
		t.Fatal(err)
	}
	code, key := nc.Class.Code, nc.TeacherKey
	if _, err := st.Join(ctx, code, "Ada"); err != nil {
		t.Fatal(err)
	}
	other := func(change func(classroom.Settings) classroom.Settings) { // the other tab
		t.Helper()
		if _, err := st.UpdateSettings(ctx, code, key, func(s classroom.Settings) (classroom.Settings, error) { return change(s), nil }); err != nil {
			t.Fatal(err)
		}
	}
	ticked := func(tc context.Context, slug string) string {
		return fmt.Sprintf(`document.querySelector('[data-testid=set-open][value=%q]').checked`, slug)
	}

	tc := b.isolatedTab("/class/teacher#key=" + key)
	b.do(tc, chromedp.WaitVisible(chromedp.CSS("[data-testid=dashboard]")))
	b.waitUntil(tc, `document.getElementById('live-status').textContent.startsWith('Live')`, "the dashboard going live")

	// The tooltip is the teacher's time, as the live redraw writes it.
	title := run(b, tc, chromedp.Evaluate[string](`document.querySelector('[data-testid=dash-learner] th').title`))
	if !regexp.MustCompile(`^last active \d\d?:\d\d( ?[AP]M)?$`).MatchString(title) {
		t.Errorf("the first draw's tooltip is %q, want the time as the page's script writes it (no UTC)", title)
	}

	// The form untouched: it follows the other tab at once.
	other(func(s classroom.Settings) classroom.Settings { s.OpenLessons = []string{first.Slug}; return s })
	b.waitUntil(tc, ticked(tc, first.Slug), "the other tab's open lesson ticked in the form")

	// The teacher starts quiz mode here, and looks away (the focus
	// leaves the form, as it never came in some browsers, where a click
	// does not focus a checkbox), while the other tab opens the second
	// lesson: the form says so, and keeps what the teacher did.
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=set-show-me]")),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
	other(func(s classroom.Settings) classroom.Settings {
		s.OpenLessons = append(s.OpenLessons, second.Slug)
		return s
	})
	b.waitUntil(tc, `document.getElementById('settings-state').textContent.startsWith('changed in another window')`, "the form saying the settings changed elsewhere")
	if run(b, tc, chromedp.Evaluate[bool](ticked(tc, second.Slug)+` || document.querySelector('[data-testid=set-show-me]').checked`)) {
		t.Error("the form was redrawn under the teacher's hand")
	}
	b.roomShots(tc, "settings-changed-elsewhere", "#settings-form")

	// Saving it would undo the other tab's second lesson: refused, and
	// the form shows what is saved.
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=settings-save]")))
	b.waitUntil(tc, `document.getElementById('settings-state').textContent.startsWith('not saved: these settings were changed')`, "the save refused")
	b.waitUntil(tc, ticked(tc, second.Slug)+` && document.querySelector('[data-testid=set-show-me]').checked`, "the form showing the saved settings")
	c, err := st.Teacher(ctx, code, key)
	if err != nil || !c.Settings.ShowMe || !slices.Equal(c.Settings.OpenLessons, []string{first.Slug, second.Slug}) {
		t.Fatalf("after the refused save the settings are %+v (%v), want the other tab's", c.Settings, err)
	}
	b.roomShots(tc, "settings-save-refused", "#settings-form")

	// Redone on top of it: saved, both lessons kept.
	b.do(tc, chromedp.Click(chromedp.CSS("[data-testid=set-show-me]")), chromedp.Click(chromedp.CSS("[data-testid=settings-save]")))
	b.waitUntil(tc, `document.getElementById('settings-state').textContent === 'saved'`, "the redone save")
	c, err = st.Teacher(ctx, code, key)
	if err != nil || c.Settings.ShowMe || !slices.Equal(c.Settings.OpenLessons, []string{first.Slug, second.Slug}) {
		t.Errorf("after the redone save the settings are %+v (%v), want quiz mode and both lessons", c.Settings, err)
	}
}
