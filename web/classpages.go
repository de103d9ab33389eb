package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// ClassHomeData fills the class page: join a class, or start one.
type ClassHomeData struct {
	Code string
	Name string
	// StudentID and Email are the join form's optional identifiers.
	StudentID string
	Email     string
	JoinError string
	// ErrorField is the input the error is about, to mark it.
	ErrorField  string
	ClassName   string
	CreateError string
	// NeedsKey asks for the server's class creation key in the form.
	NeedsKey bool
}

// ClassCreatedData is the page shown once after creating a class: the
// only time the teacher link (with its key) is shown.
type ClassCreatedData struct {
	Name        string
	Code        string
	JoinLink    string
	TeacherLink string
	Dashboard   string
}

// LearnerData fills a learner's own page.
type LearnerData struct {
	Learner *classroom.Learner
	Class   classSummary
	Lessons []learnerLesson
	// Totals are the learner's solved count and points, of the
	// exercises' count and points: the teacher's row for them says the
	// same (classroom.Totals).
	Totals    classroom.Totals
	Exercises int
	// Retired is the learner's work on exercises the lessons no longer
	// have: kept, and counted in Totals.
	Retired  []learnerExercise
	Answered int // open questions answered
	Open     int // open questions (the teacher scores them)
	Progress []classroom.Progress
	// Device is the code this browser just asked for, to go on in
	// another one (class_device.go); nil until it asks.
	Device *deviceOffer
}

type learnerLesson struct {
	Slug, Title string
	Exercises   []learnerExercise
}

type learnerExercise struct {
	ID, Title string
	// Open is set for an open question, which is submitted, not solved.
	Open           bool
	Tries          int
	TriesToCorrect int
	// Status is classroom.Progress.Status, Score the exercise's score as
	// the CSVs write it ("" when there is nothing to score).
	Status string
	Score  string
	// Review is the teacher's score and comment on an open answer.
	Review *classroom.Review
	// LateCredit says the teacher credited the learner's late work on it.
	LateCredit bool
	// ClassRevealed says the teacher showed the class its answer
	// (classroom.Settings.Revealed): answers to it earn nothing now.
	ClassRevealed bool
}

func (w *classWeb) classHome(c echo.Context) error {
	d := ClassHomeData{Code: strings.ToUpper(strings.TrimSpace(c.QueryParam("code"))), NeedsKey: w.s.cfg.Class.CreationKey != ""}
	return w.s.render(c, http.StatusOK, ClassHomePage(w.s.page("Class"), d))
}

// formError is a user's mistake as a form shows it, or the error itself
// when it is not the user's to fix.
func formError(err error) (problem, error) {
	p := mapError(err)
	if p.Code == codeInternal {
		return p, err
	}
	return p, nil
}

// pageJoin: the join form (code and name). It works without JavaScript.
func (w *classWeb) pageJoin(c echo.Context) error {
	d := ClassHomeData{Code: strings.ToUpper(strings.TrimSpace(c.FormValue("code"))), Name: c.FormValue("name"),
		StudentID: c.FormValue("student_id"), Email: c.FormValue("email")}
	sess, err := w.store().JoinAs(c.Request().Context(), d.Code, classroom.Profile{Name: d.Name, StudentID: d.StudentID, Email: d.Email})
	if err != nil {
		p, err := formError(err)
		if err != nil {
			return err
		}
		if p.Status == http.StatusNotFound {
			p.Field = "code"
		}
		d.JoinError, d.ErrorField = p.Message, p.Field
		return w.s.render(c, p.Status, ClassHomePage(w.s.page("Class"), d))
	}
	setLearnerCookies(c, sess.Token)
	return c.Redirect(http.StatusSeeOther, "/class/me")
}

// pageCreate: the create form (a name). The answer shows the code and
// the teacher link once, and sets the teacher cookie.
func (w *classWeb) pageCreate(c echo.Context) error {
	name := c.FormValue("class_name")
	nc, err := w.createClass(c, name, c.FormValue("variants"))
	if err != nil {
		p, err := formError(err)
		if err != nil {
			return err
		}
		d := ClassHomeData{ClassName: name, CreateError: p.Message, NeedsKey: w.s.cfg.Class.CreationKey != ""}
		return w.s.render(c, p.Status, ClassHomePage(w.s.page("Class"), d))
	}
	setCookie(c, TeacherCookie, nc.TeacherKey)
	c.Response().Header().Set("Cache-Control", "no-store")
	cr := newCreated(nc)
	o := origin(c)
	return w.s.render(c, http.StatusCreated, ClassCreatedPage(w.s.page("Class"), ClassCreatedData{
		Name: cr.Name, Code: cr.Code, JoinLink: o + cr.JoinLink, TeacherLink: o + cr.TeacherLink, Dashboard: cr.Dashboard,
	}))
}

// learnerPage: GET /class/me, the learner's class, their own progress by
// lesson, and the scenario the teacher pushed.
func (w *classWeb) learnerPage(c echo.Context) error { return w.renderLearnerPage(c, nil) }

// renderLearnerPage draws the learner's page, with the device code they
// asked for when offer is set.
func (w *classWeb) renderLearnerPage(c echo.Context, offer *deviceOffer) error {
	if learnerToken(c) == "" {
		return c.Redirect(http.StatusSeeOther, "/class")
	}
	l, cl, prog, err := w.me(c)
	if err != nil {
		if mapError(err).Status == http.StatusUnauthorized {
			return w.s.render(c, http.StatusUnauthorized, ErrorPage(w.s.page("Class"), http.StatusUnauthorized,
				"Your class session has ended: you went on in another browser, or the teacher removed you. Continue here with a device code from that browser (Classroom, then \"Continue here with a code\"), or join again with the class code."))
		}
		return err
	}
	d := LearnerData{Learner: l, Class: w.summarize(cl), Progress: prog, Device: offer}
	by := map[string]*classroom.Progress{}
	for i := range prog {
		by[prog[i].Exercise] = &prog[i]
	}
	var ids []string
	exercise := func(id, title string, open bool) learnerExercise {
		ids = append(ids, id)
		var p classroom.Progress
		if q := by[id]; q != nil {
			p = *q
		}
		le := learnerExercise{ID: id, Title: title, Open: open, Tries: p.Tries,
			TriesToCorrect: p.TriesToCorrect, Status: p.Status(), Review: p.Review, LateCredit: p.Late && p.LateCredit,
			ClassRevealed: cl.Settings.RevealedToClass(id)}
		if sc, ok := classroom.BestScore(p); ok {
			le.Score = scoreWord(sc)
		}
		if open {
			d.Open++
			if p.Tries > 0 {
				d.Answered++
			}
		}
		return le
	}
	known := map[string]bool{}
	if cat := w.s.cfg.Lessons; cat != nil {
		for _, les := range cat.Lessons() {
			ll := learnerLesson{Slug: les.Slug, Title: les.Title}
			for _, ex := range cat.LessonExercises(les) {
				known[ex.ID] = true
				ll.Exercises = append(ll.Exercises, exercise(ex.ID, ex.Title, ex.Kind == lessons.KindText))
			}
			d.Lessons = append(d.Lessons, ll)
		}
	}
	// Work on exercises the lessons no longer have is kept and counts, as
	// on the teacher's dashboard: it is listed, not hidden in the total.
	for _, p := range prog {
		if !known[p.Exercise] {
			d.Retired = append(d.Retired, exercise(p.Exercise, p.Exercise, p.Open))
		}
	}
	d.Exercises = len(ids)
	d.Totals = classroom.TotalsOf(by, classroom.ExerciseItems(ids, w.s.ExercisePoints))
	c.Response().Header().Set("Cache-Control", "no-store")
	return w.s.render(c, http.StatusOK, LearnerPage(w.s.page("Class"), d))
}

// teacherLinkPage: GET /class/teacher#key=..., whose script trades the key in
// the fragment for the teacher cookie and opens the dashboard.
func (w *classWeb) teacherLinkPage(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return w.s.render(c, http.StatusOK, TeacherLinkPage(w.s.page("Class")))
}

// dashboardPage: GET /class/{code}/teacher. A teacher whose class code was
// rotated (here or in another tab) is sent to the current one.
func (w *classWeb) dashboardPage(c echo.Context) error {
	key := teacherKey(c)
	c.Response().Header().Set("Cache-Control", "no-store")
	v, err := w.dashboard(c, c.Param("code"), key)
	if err == nil {
		v.Class.JoinLink = origin(c) + v.Class.JoinLink
		v.Class.Roster = w.s.rosterLink(c, v.Class.Code, key)
		v.grades = w.s.gradesPanel(c, v.Class.Code, key)
		return w.s.render(c, http.StatusOK, DashboardPage(w.s.page("Class"), v))
	}
	p, err := formError(err)
	if err != nil {
		return err
	}
	if p.Status == http.StatusNotFound && key != "" {
		if cl, err := w.store().TeacherClass(c.Request().Context(), key); err == nil {
			return c.Redirect(http.StatusSeeOther, dashboardLink(cl.Code))
		}
	}
	msg := p.Message
	if p.Status == http.StatusUnauthorized {
		msg = "This dashboard needs the class's teacher key: open the private teacher link you got when you created the class."
	}
	return w.s.render(c, p.Status, ErrorPage(w.s.page("Class"), p.Status, msg))
}

// origin is this server as the browser reached it, for links to hand out
// (a join link read aloud or pasted into a chat must be whole).
func origin(c echo.Context) string {
	return c.Scheme() + "://" + c.Request().Host
}
