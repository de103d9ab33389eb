package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// settingsRequest is POST /api/classes/{code}/settings: any of the
// fields; those left out keep their value. deadline "" or null clears it.
// open_lesson opens one more lesson, whatever else is open by then (with
// none ticked, all are open already). if_unchanged is the settings as the
// sender last saw them: the change is refused (409, settings_changed) if
// they have changed since, so that a form saved in one tab does not undo
// what another tab saved meanwhile.
type settingsRequest struct {
	ShowMe      *bool           `json:"show_me"`
	OpenLessons *[]string       `json:"open_lessons"`
	OpenLesson  string          `json:"open_lesson"`
	Deadline    json.RawMessage `json:"deadline"`
	IfUnchanged *seenSettings   `json:"if_unchanged"`
}

// seenSettings is settingsRequest.IfUnchanged: the settings as the
// dashboard JSON gives them. Its deadline is read here, so that a bad one
// is named (if_unchanged.deadline) rather than failing the whole body.
type seenSettings struct {
	ShowMe      bool     `json:"show_me"`
	OpenLessons []string `json:"open_lessons"`
	Deadline    *string  `json:"deadline"`
	// Revealed is read and not compared: the form changes none of it,
	// and a reveal on the chart meanwhile undoes nothing the form saves.
	Revealed []string `json:"revealed"`
}

// settings are the settings seen, checked against the same bounds as
// the settings themselves (a list of lessons longer than any class can
// have is no settings a page was shown).
func (s seenSettings) settings() (classroom.Settings, error) {
	set := classroom.Settings{ShowMe: s.ShowMe, OpenLessons: s.OpenLessons}
	if len(s.OpenLessons) > classroom.MaxOpenLessons {
		return set, badRequest("if_unchanged.open_lessons", "must list at most %d lessons (it has %d)", classroom.MaxOpenLessons, len(s.OpenLessons))
	}
	for _, slug := range s.OpenLessons {
		if len(slug) > classroom.MaxSlugLen {
			return set, badRequest("if_unchanged.open_lessons", "must be at most %d characters (it has %d)", classroom.MaxSlugLen, len(slug))
		}
	}
	if s.Deadline != nil && *s.Deadline != "" {
		t, err := parseDeadline("if_unchanged.deadline", *s.Deadline)
		if err != nil {
			return set, err
		}
		set.Deadline = &t
	}
	return set, nil
}

// codeSettingsChanged is the refusal of a change made against settings
// that have changed since (settingsRequest.IfUnchanged).
const codeSettingsChanged = "settings_changed"

// learnerSettings is what a learner's pages are told of the settings:
// what to hide, what is closed, when the deadline is, which answers the
// teacher showed the class. ClosedLessons are the catalog's lessons the
// class does not have open, as classroom.Settings.LessonOpen decides: the
// pages mark exactly those, and never work the rule out again. Revealed
// are the exercises whose answer the teacher showed the class
// (classroom.Settings.Revealed): their forms and the learner's own page
// say, before an answer is typed, that answers now earn nothing.
type learnerSettings struct {
	ShowMe        bool       `json:"show_me"`
	OpenLessons   []string   `json:"open_lessons"`
	ClosedLessons []string   `json:"closed_lessons"`
	Deadline      *time.Time `json:"deadline,omitempty"`
	Revealed      []string   `json:"revealed"`
}

func (w *classWeb) learnerSettingsOf(s classroom.Settings) learnerSettings {
	open := s.OpenLessons
	if open == nil {
		open = []string{}
	}
	closed := []string{}
	if cat := w.s.cfg.Lessons; cat != nil {
		for _, l := range cat.Lessons() {
			if !s.LessonOpen(l.Slug) {
				closed = append(closed, l.Slug)
			}
		}
	}
	revealed := s.Revealed
	if revealed == nil {
		revealed = []string{}
	}
	return learnerSettings{ShowMe: s.ShowMe, OpenLessons: open, ClosedLessons: closed, Deadline: s.Deadline, Revealed: revealed}
}

// apiSettings: POST /api/classes/{code}/settings with the teacher key.
// The settings reach learners' pages with the next read of their class,
// and the dashboard's stream at once.
func (w *classWeb) apiSettings(c echo.Context) error {
	var in settingsRequest
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	// Everything the request says is checked first, outside the store's
	// write; what is left inside it is the comparison and the merge.
	ch, err := w.parseSettings(in)
	if err != nil {
		return err
	}
	// The change is made to the settings as they stand in the store's
	// write, not as an earlier read found them: two changes at once
	// (open_lesson from two tabs) both count.
	var before classroom.Settings
	cl, err := w.store().UpdateSettings(c.Request().Context(), c.Param("code"), teacherKey(c), func(cur classroom.Settings) (classroom.Settings, error) {
		before = cur
		return ch.apply(cur)
	})
	if err != nil {
		return err
	}
	lifted := 0
	if until, later := deadlineMovedLater(before.Deadline, cl.Settings.Deadline); later {
		if lifted, err = w.liftLate(c, until); err != nil {
			return err
		}
	}
	return writeJSON(c, http.StatusOK, map[string]any{"code": cl.Code, "settings": cl.Settings, "late_lifted": lifted})
}

// deadlineMovedLater says whether a deadline moved later (or was
// cleared: until is then zero), which lifts the lateness of attempts made
// by the new one.
func deadlineMovedLater(was, now *time.Time) (until time.Time, later bool) {
	switch {
	case was == nil:
		return time.Time{}, false
	case now == nil:
		return time.Time{}, true
	}
	return *now, now.After(*was)
}

// liftLate un-marks the late attempts a later deadline puts on time and
// rescores their exercises (their stored scores are the late ones: 0),
// passing each change of a best score on (scoreChanged: the course's
// gradebook among others). A choose-several's attempts are checked again,
// as for the teacher's late credit: a late one was kept with no share. It
// returns how many learners' exercises it lifted.
func (w *classWeb) liftLate(c echo.Context, until time.Time) (int, error) {
	ctx := c.Request().Context()
	code, key := c.Param("code"), teacherKey(c)
	lifted, err := w.store().LiftLate(ctx, code, key, until)
	if err != nil || len(lifted) == 0 || w.s.cfg.Lessons == nil {
		return len(lifted), err
	}
	learners := map[string][]int64{}
	var order []string
	for _, le := range lifted {
		if learners[le.Exercise] == nil {
			order = append(order, le.Exercise)
		}
		learners[le.Exercise] = append(learners[le.Exercise], le.LearnerID)
	}
	for _, id := range order {
		ex, err := w.s.cfg.Lessons.Exercise(id)
		if err != nil || ex.Kind == lessons.KindText {
			continue // gone from the catalog, or scored by the teacher: nothing to rescore
		}
		var verdicts []classroom.Verdict
		if ex.CreditRule() == classroom.RulePartial {
			// One read of the exercise's attempts; Rescore takes the
			// verdicts of the learners it rescores and leaves the rest.
			if verdicts, err = w.recheck(c, ex, 0); err != nil {
				return 0, err
			}
		}
		// Only the learners lifted: anyone else's scores stand as they
		// were recorded.
		changes, err := w.store().Rescore(ctx, code, key, ex.ID, ex.CreditRule(), learners[id], verdicts)
		if err != nil {
			return 0, err
		}
		for _, ch := range changes {
			w.s.scoreChanged(ctx, ch)
		}
	}
	return len(lifted), nil
}

// settingsChange is a settings request, checked against its bounds and
// the catalog: what to set, and the settings it was made against.
type settingsChange struct {
	showMe      *bool
	openLessons []string // nil: kept
	openLesson  string
	setDeadline bool
	deadline    *time.Time
	seen        *classroom.Settings
}

// parseSettings checks a request's fields; errors name the field.
func (w *classWeb) parseSettings(in settingsRequest) (settingsChange, error) {
	ch := settingsChange{showMe: in.ShowMe, openLesson: in.OpenLesson}
	if in.IfUnchanged != nil {
		seen, err := in.IfUnchanged.settings()
		if err != nil {
			return ch, err
		}
		ch.seen = &seen
	}
	if in.OpenLessons != nil {
		open, err := w.lessonSlugs("open_lessons", *in.OpenLessons)
		if err != nil {
			return ch, err
		}
		ch.openLessons = open
	}
	if slug := in.OpenLesson; slug != "" {
		if _, err := w.lessonSlugs("open_lesson", []string{slug}); err != nil {
			return ch, err
		}
	}
	if raw := bytes.TrimSpace(in.Deadline); len(raw) > 0 {
		ch.setDeadline = true
		var text *string
		if err := json.Unmarshal(raw, &text); err != nil {
			return ch, badRequest("deadline", "must be a time in RFC 3339 (2026-12-01T17:00:00Z), or null to clear it")
		}
		if text != nil && *text != "" {
			t, err := parseDeadline("deadline", *text)
			if err != nil {
				return ch, err
			}
			ch.deadline = &t
		}
	}
	return ch, nil
}

// lessonSlugs checks a list of lessons (at most MaxOpenLessons, each a
// lesson of the catalog) and drops repeats.
func (w *classWeb) lessonSlugs(field string, slugs []string) ([]string, error) {
	if len(slugs) > classroom.MaxOpenLessons {
		return nil, badRequest(field, "must list at most %d lessons (it has %d)", classroom.MaxOpenLessons, len(slugs))
	}
	out := []string{}
	for _, slug := range slugs {
		if len(slug) > classroom.MaxSlugLen {
			return nil, badRequest(field, "must be at most %d characters (it has %d)", classroom.MaxSlugLen, len(slug))
		}
		if w.s.cfg.Lessons == nil {
			return nil, badRequest(field, "this server has no lessons")
		}
		if _, err := w.s.cfg.Lessons.Lesson(slug); err != nil {
			return nil, badRequest(field, "%s is not a lesson of this course", excerpt(slug))
		}
		if !slices.Contains(out, slug) {
			out = append(out, slug)
		}
	}
	return out, nil
}

// parseDeadline reads a deadline in RFC 3339, in UTC.
func parseDeadline(field, text string) (time.Time, error) {
	if len(text) > 64 {
		return time.Time{}, badRequest(field, "must be at most 64 characters (it has %d)", len(text))
	}
	t, err := time.Parse(time.RFC3339, text)
	if err != nil {
		return time.Time{}, badRequest(field, "%s is not a time in RFC 3339 (2026-12-01T17:00:00Z)", excerpt(text))
	}
	return t.UTC(), nil
}

// apply makes the change to the settings as they stand (cur), or
// refuses it if they are not the settings it was made against.
func (ch settingsChange) apply(cur classroom.Settings) (classroom.Settings, error) {
	if ch.seen != nil && !sameSettings(*ch.seen, cur) {
		return cur, errSettingsChanged()
	}
	set := cur
	if ch.showMe != nil {
		set.ShowMe = *ch.showMe
	}
	if ch.openLessons != nil {
		set.OpenLessons = ch.openLessons
	}
	if ch.openLesson != "" && !set.LessonOpen(ch.openLesson) {
		set.OpenLessons = append(slices.Clone(set.OpenLessons), ch.openLesson)
	}
	if ch.setDeadline {
		set.Deadline = ch.deadline
	}
	return set, classroom.CheckSettings(set)
}

// errSettingsChanged is the refusal of a change made against settings
// that have changed since the sender saw them.
func errSettingsChanged() error {
	return &userError{Status: http.StatusConflict, Code: codeSettingsChanged, Field: "if_unchanged",
		Msg: "the settings were changed elsewhere (another tab, or another teacher of the class) since this page showed them: nothing was saved"}
}

// sameSettings says whether a and b are the same settings: the same
// lessons open, in any order.
func sameSettings(a, b classroom.Settings) bool {
	if a.ShowMe != b.ShowMe || (a.Deadline == nil) != (b.Deadline == nil) || a.Deadline != nil && !a.Deadline.Equal(*b.Deadline) {
		return false
	}
	x, y := slices.Clone(a.OpenLessons), slices.Clone(b.OpenLessons)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// Codes of the refusals the settings cause, so a page can tell them apart.
const (
	codeQuizMode      = "quiz_mode"
	codeLessonNotOpen = "not_open_yet"
)

// refuseClosedLesson is the 403 for a class learner's check of an
// exercise whose lesson the teacher has not opened yet.
func (a *asker) refuseClosedLesson() error {
	if !a.inClass() || a.class.Settings.LessonOpen(a.ex.Lesson) {
		return nil
	}
	return &userError{Status: http.StatusForbidden, Code: codeLessonNotOpen, Field: "exercise",
		Msg: "this exercise's lesson is not open yet in your class: your teacher opens the lessons one at a time"}
}

// quizMode is the quiz-mode rule, the one place it is decided: a class
// learner whose teacher switched "show me" off is shown no answer. Every
// path that could show one asks it: giving up and the worked solution
// refuse (refuseShowMe), a check keeps the answer back (apiCheck:
// lessons.Attempt.Withhold), and an exercise served again does not say
// its answer is earned (serve).
func (a *asker) quizMode() bool { return a.inClass() && !a.class.Settings.ShowMe }

// creditEnded says whether the learner's wrong tries have ended the
// exercise's credit (classroom.CreditTries) with no right answer before,
// whether or not the answer was shown then.
func (a *asker) creditEnded() bool {
	return !a.standing.Correct && a.standing.Tries >= classroom.CreditTries
}

// codeTriesUsed is the refusal of a check in quiz mode once the
// learner's wrong tries ended the exercise's credit.
const codeTriesUsed = "quiz_tries_used"

// refuseTriesUsed is the 409 for a check in quiz mode after the wrong
// try that would have shown the answer: quiz mode keeps the answer back,
// so it takes no more tries, which could only be guesses. Once the class
// leaves quiz mode the answer is shown and the exercise takes answers
// again, as practice.
func (a *asker) refuseTriesUsed(ex *lessons.Exercise) error {
	if a.quizTries(ex) == 0 || !a.creditEnded() {
		return nil
	}
	return triesUsed()
}

// quizTries is the wrong tries an exercise takes from this learner
// before refuseTriesUsed: classroom.CreditTries in quiz mode, for an
// exercise the checker grades and the learner did not give up on; 0
// (no bound) otherwise. The store holds checks sent at once to it too
// (classroom.Attempt.StopAfterWrong).
func (a *asker) quizTries(ex *lessons.Exercise) int {
	if !a.inClass() || !a.quizMode() || ex.Kind == lessons.KindText || a.standing.GaveUp {
		return 0
	}
	return classroom.CreditTries
}

// triesUsed is the refusal refuseTriesUsed gives.
func triesUsed() error {
	return &userError{Status: http.StatusConflict, Code: codeTriesUsed, Field: "exercise",
		Msg: fmt.Sprintf("you have used the %d tries this exercise takes in quiz mode: your teacher sees them, and the answer is shown once your class leaves quiz mode", classroom.CreditTries)}
}

// refuseShowMe is the 403 for giving up, "show me" or a solution in a
// class in quiz mode.
func (a *asker) refuseShowMe() error {
	if !a.quizMode() {
		return nil
	}
	return &userError{Status: http.StatusForbidden, Code: codeQuizMode, Field: "exercise",
		Msg: "your class is in quiz mode: answers and solutions are not shown until your teacher ends it"}
}

// openHas says whether a lesson is ticked open in the settings form.
func openHas(s classroom.Settings, slug string) bool {
	for _, o := range s.OpenLessons {
		if o == slug {
			return true
		}
	}
	return false
}

// deadlineAttr is the deadline for the settings form's script (RFC 3339,
// shown in the teacher's own time zone), or "".
func deadlineAttr(s classroom.Settings) string {
	if s.Deadline == nil {
		return ""
	}
	return s.Deadline.UTC().Format(time.RFC3339)
}

// lastActiveWord is a learner's row's tooltip: when they last did
// something, in UTC for a page without its script, which rewrites it in
// the teacher's own time from lastActiveAttr (teacher.js activeTitle).
func lastActiveWord(l dashLearner) string {
	return "last active " + l.LastActive.UTC().Format("15:04 UTC")
}

// lastActiveAttr is when a learner last did something, for the page's
// script (RFC 3339).
func lastActiveAttr(l dashLearner) string { return l.LastActive.UTC().Format(time.RFC3339) }

// lessonOpenTo says whether the learner's class has lesson slug open.
func lessonOpenTo(s learnerSettings, slug string) bool {
	return !slices.Contains(s.ClosedLessons, slug)
}

// pushedWhat names what was pushed, for the learner's page.
func pushedWhat(l *scenarioLink) string {
	switch l.Kind {
	case "lesson":
		return "a lesson"
	case "exercise":
		return "an exercise"
	}
	return "a scenario"
}

// serve is the exercise as this learner sees it: on their variant, with
// their standing; in quiz mode its answer is not earned, so the page
// neither fetches the worked solution nor opens a playground that waits
// for it.
func (a *asker) serve() (lessons.Served, error) {
	served, err := a.ex.Serve(a.variant, a.standing)
	if err != nil {
		return served, err
	}
	served.Variant = a.shownVariant()
	if a.quizMode() {
		served.Earned = false
	}
	return served, nil
}
