package web

import (
	"sort"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// dashView is the teacher's dashboard: what the page renders first and
// what every live update sends as JSON for the page's script to redraw.
type dashView struct {
	Class     dashClass      `json:"class"`
	Exercises []dashExercise `json:"exercises"`
	Learners  []dashLearner  `json:"learners"`
	// Answers are the open answers to read and score, one per learner and
	// exercise (the latest), newest first.
	Answers []dashAnswer `json:"answers"`
	// Keys are the model answer and rubric of each exercise in Answers.
	Keys []dashKey `json:"keys"`

	// The page's split of Exercises (teacher.js splits the live updates
	// the same way): tried are the exercises someone has tried, in lesson
	// order, what the class is working on; untried are folded into one
	// line; columns are the indexes into Exercises (and each learner's
	// Cells) of the learners grid's columns, since a column nobody has a
	// mark in is noise when a class has just started (the grid CSV keeps
	// every column).
	tried, untried []dashExercise
	columns        []int
	// lessonOpts and pollOpts fill the room's controls: the lessons to
	// push or open, and the exercises whose answers can be counted.
	lessonOpts, pollOpts []roomOpt
	// grades is the "Grades to <course>" panel of a class of a course,
	// nil for any other: drawn on the page only, and kept out of the
	// live updates, which go whole to every stream on each change
	// (grades.js reads it on its own).
	grades *gradesView
}

// roomOpt is one choice in the room's controls.
type roomOpt struct{ ID, Title string }

type dashClass struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Variants string `json:"variants"`
	JoinOpen bool   `json:"join_open"`
	// Joining says whether learners can join now: the switch is on and
	// the class is neither archived nor expired. The page and its live
	// redraw both show this one answer.
	Joining   bool   `json:"joining"`
	JoinLink  string `json:"join_link"`
	Dashboard string `json:"dashboard"`
	// Roster is the page of the course's roster, when the class came from
	// a course whose platform offers one (LTI).
	Roster    string        `json:"roster,omitempty"`
	Scenario  *scenarioLink `json:"scenario,omitempty"`
	Lifecycle lifecycle     `json:"lifecycle"`
	// Settings are the class's pacing (POST .../settings).
	Settings classroom.Settings `json:"settings"`
}

// dashExercise sums one exercise up over the class, with its most common
// mistakes.
type dashExercise struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Lesson is the title of the lesson that lists the exercise, so a
	// teacher reads where the class is; "" for one the catalog dropped.
	Lesson    string        `json:"lesson"`
	Attempted int           `json:"attempted"`
	Correct   int           `json:"correct"`
	Tries     int           `json:"tries"`
	GaveUp    int           `json:"gave_up"`
	Mistakes  []dashMistake `json:"mistakes"`
}

// Tried says whether any learner has answered the exercise (or given up on
// it): the dashboard lists these and folds the others into one line.
func (e dashExercise) Tried() bool { return e.Attempted > 0 || e.Correct > 0 || e.GaveUp > 0 }

// dashLearner is a row of the learner x exercise grid; Cells follow
// Exercises.
type dashLearner struct {
	ID    int64      `json:"id"`
	Name  string     `json:"name"`
	Cells []dashCell `json:"cells"`
	// Correct counts the exercises solved and Score the learner's points
	// (classroom.Totals, as their own page and progress-wide.csv say).
	Correct int    `json:"correct"`
	Score   string `json:"score"`
	// LastActive is when the learner last joined or answered; Current the
	// exercise they answered last (its id and title), where they are now.
	LastActive   time.Time `json:"last_active"`
	Current      string    `json:"current,omitempty"`
	CurrentTitle string    `json:"current_title,omitempty"`
	// Stuck says they have tried Current StuckTries times without
	// solving it: the dashboard lists them first.
	Stuck bool `json:"stuck"`
}

// StuckTries is how many failed tries on the current exercise flag a
// learner as stuck.
const StuckTries = 3

// dashCell is one learner on one exercise, worked out here once for the
// page and for teacher.js, which draws what it is sent. Every field is
// left out when empty: most of a class's grid is exercises a learner has
// not reached, and a live dashboard is sent whole on each change, so an
// untried cell goes as {} (teacher.js's cellOf fills the blanks).
type dashCell struct {
	Tries int `json:"tries,omitempty"`
	// Correct is set when the exercise counts as solved (Progress.Done).
	Correct bool `json:"correct,omitempty"`
	// Status is classroom.Progress.Status; Score the exercise's score as
	// the CSVs write it, "" when there is nothing to score.
	Status string `json:"status,omitempty"`
	Score  string `json:"score,omitempty"`
	// Text is what the cell shows, State its class, Title its tooltip.
	Text  string `json:"text,omitempty"`
	State string `json:"state,omitempty"`
	Title string `json:"title,omitempty"`
	// Late says the learner tried after the class's deadline, LateCredit
	// that the teacher credited that late work: the grid offers the
	// teacher the one click that grants or withdraws it.
	Late       bool `json:"late,omitempty"`
	LateCredit bool `json:"late_credit,omitempty"`
}

// stateOf is the cell's class: "" (not tried), "correct", "tried",
// "revealed", "partial", "submitted", "scored".
func (c dashCell) stateOf() string {
	switch c.Status {
	case classroom.StatusSolved:
		return "correct"
	case classroom.StatusWrong:
		return "tried"
	case classroom.StatusRevealedScored:
		return "scored" // a class name: one word
	case classroom.StatusResubmitted:
		return classroom.StatusSubmitted // waiting for the teacher, as a first answer does
	}
	return c.Status
}

// cellOf is a learner's progress on an exercise as the grid shows it: a
// mark and the score, so that the colour is never the only sign, and the
// tries in the tooltip.
func cellOf(p classroom.Progress) dashCell {
	c := dashCell{Tries: p.Tries, Correct: p.Done(), Status: p.Status()}
	if v, ok := classroom.BestScore(p); ok {
		c.Score = scoreWord(v)
	}
	switch c.Status {
	case classroom.StatusSolved:
		c.Text = "✓ " + c.Score
	case classroom.StatusRevealed:
		c.Text = "revealed"
	case classroom.StatusLate:
		c.Text = "late"
	case classroom.StatusPartial:
		c.Text = "◐ " + c.Score
	case classroom.StatusWrong:
		c.Text = "✗ " + c.Score
	case classroom.StatusSubmitted:
		c.Text = "✎ …"
	case classroom.StatusScored:
		c.Text = "✎ " + c.Score
	case classroom.StatusResubmitted:
		c.Text = "✎ " + c.Score + " …"
	case classroom.StatusRevealedScored:
		c.Text = "↺ " + c.Score
	}
	c.State = c.stateOf()
	c.Title = triesWord(p.Tries) + statusWord(c.Status)
	c.Late, c.LateCredit = p.Late, p.Late && p.LateCredit
	if c.LateCredit {
		c.Title += " · late, credited"
	}
	return c
}

// exerciseOrder is the catalog's order, then any exercise the class tried
// that the catalog no longer has, so no recorded work is left out.
func (w *classWeb) exerciseOrder(d *classroom.Dashboard) []string {
	var out []string
	seen := map[string]bool{}
	if w.s.cfg.Lessons != nil {
		for _, ex := range w.s.cfg.Lessons.Exercises() {
			out = append(out, ex.ID)
			seen[ex.ID] = true
		}
	}
	for _, ex := range d.Exercises {
		if !seen[ex] {
			out = append(out, ex)
		}
	}
	return out
}

func (w *classWeb) dashboard(c echo.Context, code, key string) (*dashView, error) {
	d, err := w.store().Dashboard(c.Request().Context(), code, key)
	if err != nil {
		return nil, err
	}
	return w.view(d), nil
}

func (w *classWeb) view(d *classroom.Dashboard) *dashView {
	order := w.exerciseOrder(d)
	v := &dashView{
		Class: dashClass{Code: d.Class.Code, Name: d.Class.Name, Variants: d.Class.Variants, JoinOpen: d.Class.JoinOpen,
			JoinLink: joinLink(d.Class.Code), Dashboard: dashboardLink(d.Class.Code), Scenario: w.linkFor(d.Class.Scenario, d.Class.Settings), Settings: d.Class.Settings,
			Lifecycle: lifecycleOf(d.Class, w.s.cfg.Class.Clock())},
		Exercises: []dashExercise{},
		Learners:  []dashLearner{},
	}
	// An archived or expired class takes nobody, whatever its switch says.
	v.Class.Joining = v.Class.JoinOpen && !v.Class.Lifecycle.Closed()
	mistakes := map[string][]dashMistake{}
	for _, m := range w.mistakeViews(d.Mistakes) {
		if len(mistakes[m.Exercise]) < dashMistakes {
			mistakes[m.Exercise] = append(mistakes[m.Exercise], m)
		}
	}
	for _, st := range d.Stats(order) {
		title, kind := w.exerciseTitle(st.Exercise)
		ms := mistakes[st.Exercise]
		if ms == nil {
			ms = []dashMistake{}
		}
		ex := dashExercise{ID: st.Exercise, Title: title, Kind: kind, Lesson: w.lessonTitle(st.Exercise),
			Attempted: st.Attempted, Correct: st.Correct, Tries: st.Tries, GaveUp: st.GaveUp, Mistakes: ms}
		if ex.Tried() {
			v.tried, v.columns = append(v.tried, ex), append(v.columns, len(v.Exercises))
		} else {
			v.untried = append(v.untried, ex)
		}
		v.Exercises = append(v.Exercises, ex)
	}
	if cat := w.s.cfg.Lessons; cat != nil {
		for _, l := range cat.Lessons() {
			v.lessonOpts = append(v.lessonOpts, roomOpt{l.Slug, l.Title})
		}
		for _, ex := range cat.Exercises() {
			if ex.Kind == lessons.KindPredict || ex.Kind == lessons.KindChoice || ex.Kind == lessons.KindNumber {
				v.pollOpts = append(v.pollOpts, roomOpt{ex.ID, ex.Title})
			}
		}
	}
	v.Answers = w.answerViews(d.Answers)
	v.Keys = w.answerKeys(v.Answers)
	col := map[string]int{}
	for i, ex := range order {
		col[ex] = i
	}
	row := map[int64]int{}
	totals := d.Totals(w.gradeItems(d, false))
	for _, l := range d.Learners {
		row[l.ID] = len(v.Learners)
		t := totals[l.ID]
		v.Learners = append(v.Learners, dashLearner{ID: l.ID, Name: l.Name, Cells: make([]dashCell, len(order)), LastActive: l.JoinedAt.UTC(),
			Correct: t.Solved, Score: scoreWord(t.Points)})
	}
	current := make([]*classroom.Progress, len(v.Learners))
	for i, p := range d.Progress {
		r, ok := row[p.LearnerID]
		if !ok {
			continue
		}
		v.Learners[r].Cells[col[p.Exercise]] = cellOf(p)
		if cur := current[r]; cur == nil || p.LastAt.After(cur.LastAt) {
			current[r] = &d.Progress[i]
		}
	}
	for i := range v.Learners {
		if p := current[i]; p != nil {
			l := &v.Learners[i]
			if p.LastAt.After(l.LastActive) {
				l.LastActive = p.LastAt.UTC()
			}
			l.Current = p.Exercise
			l.CurrentTitle, _ = w.exerciseTitle(p.Exercise)
			l.Stuck = !p.Done() && !p.Correct && !p.Open && p.Tries >= StuckTries
		}
	}
	// Who is stuck now comes first; otherwise the joining order stays.
	sort.SliceStable(v.Learners, func(i, j int) bool { return v.Learners[i].Stuck && !v.Learners[j].Stuck })
	return v
}

// lessonTitle is the title of the lesson listing exercise id, or "".
func (w *classWeb) lessonTitle(id string) string {
	if w.s.cfg.Lessons == nil {
		return ""
	}
	ex, err := w.s.cfg.Lessons.Exercise(id)
	if err != nil {
		return ""
	}
	l, err := w.s.cfg.Lessons.Lesson(ex.Lesson)
	if err != nil {
		return ""
	}
	return l.Title
}

// toMark counts the open answers the teacher has not scored yet.
func (v *dashView) toMark() int {
	n := 0
	for _, a := range v.Answers {
		if a.Review == nil || a.Rescore {
			n++
		}
	}
	return n
}

// lateCreditLabel is what the late-credit button says to a screen reader.
func lateCreditLabel(name, title string, credited bool) string {
	if credited {
		return "Withdraw the credit for " + name + "'s late work on " + title
	}
	return "Credit " + name + "'s late work on " + title + " as if on time"
}
