package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// MaxGradesRetry bounds what one "Send again" re-arms: at most this many
// given-up scores, and as many reveals, of the class. A course larger
// than that is re-armed in several presses, each a short write.
const MaxGradesRetry = 1000

// gradesView is the dashboard's "Grades to <course>" panel: how the
// class's grades are reaching its course, in words worked out here once
// for the page, for the dashboard stream's "grades" events and for GET
// .../lti/grades; grades.js draws what it is sent.
type gradesView struct {
	classroom.LTIGrades
	// State is "sent" (nothing waits, nothing given up), "waiting" or
	// "given-up", for the panel's look.
	State string `json:"state"`
	// SentText, WaitingText and GivenUpText are the panel's lines; the
	// last two are "" when nothing waits or nothing was given up.
	SentText    string `json:"sent_text"`
	WaitingText string `json:"waiting_text,omitempty"`
	GivenUpText string `json:"given_up_text,omitempty"`
	// UnmatchedText is the line for the older scores of the course the
	// upgrade could match to no class (LTIGrades.Unmatched), "" when
	// there are none.
	UnmatchedText string `json:"unmatched_text,omitempty"`
	// RetryProblem and Problem are, in plain words, the last failure of
	// what waits and of what was given up (lti.Problem); RetryError and
	// LastError keep the errors themselves, for whoever runs the course.
	RetryProblem string `json:"retry_problem,omitempty"`
	Problem      string `json:"problem,omitempty"`
	// RetryProblemWords is the waiting line's note: "Last try: " and
	// RetryProblem.
	RetryProblemWords string `json:"retry_problem_words,omitempty"`
	// JumpText is the panel's link at the top of the dashboard, which
	// says at once, on a phone too, whether grades were given up.
	JumpText string `json:"jump_text"`
}

// gradesOf puts a class's grades into the panel's words at now.
func gradesOf(g *classroom.LTIGrades, now time.Time) *gradesView {
	v := &gradesView{LTIGrades: *g, State: "sent", JumpText: "Grades sent"}
	v.SentText = countWord(g.Sent, "score", "scores") + " sent"
	if g.Sent == 0 {
		v.SentText = "No score sent yet"
	}
	if g.Waiting+g.RevealsWaiting > 0 {
		v.State = "waiting"
		v.WaitingText = both(g.Waiting, g.RevealsWaiting) + " waiting, next try " + inWords(g.NextAt.Sub(now))
		v.RetryProblem = lti.Problem(g.RetryError)
		v.RetryProblemWords = retryProblemWords(v.RetryProblem)
		v.JumpText = "Grades waiting"
	}
	if g.GivenUp+g.RevealsGivenUp > 0 {
		v.State = "given-up"
		v.GivenUpText = both(g.GivenUp, g.RevealsGivenUp) + " given up after the last try"
		v.Problem = lti.Problem(g.LastError)
		v.JumpText = "Grades: " + strconv.Itoa(g.GivenUp+g.RevealsGivenUp) + " given up"
	}
	if g.Unmatched > 0 {
		v.UnmatchedText = countWord(g.Unmatched, "older score", "older scores") + " of this course, queued before an upgrade, could not be matched to a class: " +
			"not counted above, and not sent again by Send again"
	}
	return v
}

// both says how many scores and revealed exercises: "2 scores and 1
// revealed exercise".
func both(scores, reveals int) string {
	switch {
	case reveals == 0:
		return countWord(scores, "score", "scores")
	case scores == 0:
		return countWord(reveals, "revealed exercise", "revealed exercises")
	}
	return countWord(scores, "score", "scores") + " and " + countWord(reveals, "revealed exercise", "revealed exercises")
}

// inWords says when a try comes, from now: "now", "in 4 min".
func inWords(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return "in under a minute"
	case d < time.Hour:
		return fmt.Sprintf("in %d min", int(d.Round(time.Minute)/time.Minute))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("in %d h %d min", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// classGrades is the panel of a class of a course; ENOTFOUND for one of
// no course (or on a server without LTI).
func (s *Server) classGrades(ctx context.Context, classID int64) (*gradesView, error) {
	if s.cfg.LTI == nil {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "this server sends no grades to courses")
	}
	now := s.cfg.Class.Clock()
	g, err := s.cfg.LTI.Store().LTIGrades(ctx, classID, now)
	if err != nil {
		return nil, err
	}
	return gradesOf(g, now), nil
}

// gradesPanel is the dashboard's panel for the class, nil for a class of
// no course (nothing shows) or when it cannot be read now (the page's
// script tries again).
func (s *Server) gradesPanel(c echo.Context, code, key string) *gradesView {
	if s.cfg.LTI == nil {
		return nil
	}
	ctx := c.Request().Context()
	cl, err := s.cfg.Classroom.Teacher(ctx, code, key)
	if err != nil {
		return nil
	}
	g, err := s.classGrades(ctx, cl.ID)
	if err != nil {
		if classroom.ErrorCode(err) != classroom.ENOTFOUND {
			s.log.Warn("lti: could not read a class's grades", "class", cl.ID, "err", err)
		}
		return nil
	}
	return g
}

// ltiGrades: GET /api/classes/{code}/lti/grades with the teacher key:
// how the class's grades are reaching its course (gradesView); 404 for a
// class that came from no course.
func (s *Server) ltiGrades(c echo.Context) error {
	ctx := c.Request().Context()
	cl, err := s.cfg.Classroom.Teacher(ctx, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	g, err := s.classGrades(ctx, cl.ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return writeJSON(c, http.StatusOK, g)
}

// ltiGradesRetry: POST /api/classes/{code}/lti/grades/retry with the
// teacher key, the dashboard's "Send again": the class's scores and
// reveals the queue gave up on are tried again from now (at most
// MaxGradesRetry of each), and the queue woken. It answers how many of
// each, and the panel as it stands after.
func (s *Server) ltiGradesRetry(c echo.Context) error {
	var in struct{}
	if err := s.readJSON(c, &in); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cl, err := s.cfg.Classroom.Teacher(ctx, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	if _, err := s.classGrades(ctx, cl.ID); err != nil {
		return err // no course: nothing to send again
	}
	scores, reveals, err := s.cfg.LTI.Store().RetryLTIGrades(ctx, cl.ID, s.cfg.Class.Clock(), MaxGradesRetry)
	if err != nil {
		return err
	}
	if scores+reveals > 0 {
		s.cfg.LTI.Wake()
	}
	g, err := s.classGrades(ctx, cl.ID)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"scores": scores, "reveals": reveals, "grades": g})
}

// retryProblemWords is the note on what waits: why its last try failed,
// "" when none has failed yet.
func retryProblemWords(problem string) string {
	if problem == "" {
		return ""
	}
	return "Last try: " + strings.ToLower(problem[:1]) + problem[1:]
}

// gradesError is the error behind the panel's words, as the course's
// administrator would look it up: the given-up one's, else the waiting
// one's.
func gradesError(g *gradesView) string {
	if g.LastError != "" && g.GivenUpText != "" {
		return g.LastError
	}
	if g.WaitingText != "" {
		return g.RetryError
	}
	return ""
}
