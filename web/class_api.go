package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// classWeb holds what the class pages and APIs share besides the Server.
type classWeb struct {
	s          *Server
	m          *metrics
	joins      *ipLimiter
	wrongCodes *ipLimiter // joins with a code no class has (joinguess.go)
	guesses    *guessGate // codes being looked up, counted as wrong till they settle
	creates    *ipLimiter
	// deviceCodes: the device codes each learner asks for, by learner id
	// (class_device.go).
	deviceCodes *ipLimiter
	checks      *flowLimiter // per issued session, then per address (flowlimit.go)
	// reads: the store reads a learner's cookie sets off, per learner then
	// per address (learner_reads.go).
	reads *flowLimiter
	feeds *dashFeeds // live dashboards, one feed per class
	// learnerFeeds: learners' live class streams, one feed per class.
	learnerFeeds *learnerFeeds
}

// newClassWeb makes the class pages' shared parts: metrics, and per-IP
// limits that read the time from Config.Class.Clock.
func (s *Server) newClassWeb() *classWeb {
	cc := s.cfg.Class
	w := &classWeb{
		s:     s,
		m:     s.metrics,
		joins: newIPLimiter("joins", DefaultJoinRate, cc.Clock),
		// Wrong join codes have a bucket of their own (joinguess.go).
		wrongCodes:  newIPLimiter("wrong class codes", DefaultWrongCodeRate, cc.Clock),
		creates:     newIPLimiter("classes created", cc.CreateRate, cc.Clock),
		deviceCodes: newIPLimiter("device codes", DefaultDeviceCodeRate, cc.Clock),
		checks: newFlowLimiter("checks", DefaultCheckRate, DefaultSessionCheckRate, DefaultSessionBucketsPerAddress,
			cc.Clock),
		reads: newFlowLimiter("learner reads", DefaultLearnerReadRate, learnerReadRate(cc.Live.Poll), DefaultSessionBucketsPerAddress,
			cc.Clock),
	}
	w.joins.what = "joins (joining a class, or going on in another browser with a device code)"
	w.guesses = newGuessGate(w.wrongCodes, w.m.guessesWaiting)
	w.feeds = newDashFeeds(w)
	w.learnerFeeds = newLearnerFeeds(w)
	return w
}

func (w *classWeb) store() classroom.Store { return w.s.cfg.Classroom }

// needStore answers 404 for every class route of a server run without a
// classroom store.
func (w *classWeb) needStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if w.store() == nil {
			return &userError{Status: http.StatusNotFound, Msg: "this server runs without classes"}
		}
		return next(c)
	}
}

// teacherLink is the private link to a class's dashboard: the key rides
// in the #fragment, which browsers never send to a server.
func teacherLink(key string) string { return "/class/teacher#key=" + url.QueryEscape(key) }

// joinLink opens the join form with the code filled in.
func joinLink(code string) string { return "/class?code=" + url.QueryEscape(code) }

// dashboardLink is the teacher's dashboard of the class with this code.
func dashboardLink(code string) string { return "/class/" + url.PathEscape(code) + "/teacher" }

type createdClass struct {
	Code        string `json:"code"`
	TeacherKey  string `json:"teacher_key"`
	Name        string `json:"name"`
	Variants    string `json:"variants"`
	JoinLink    string `json:"join_link"`
	TeacherLink string `json:"teacher_link"`
	Dashboard   string `json:"dashboard"`
}

func newCreated(nc *classroom.NewClass) createdClass {
	return createdClass{Code: nc.Class.Code, TeacherKey: nc.TeacherKey, Name: nc.Class.Name, Variants: nc.Class.Variants,
		JoinLink: joinLink(nc.Class.Code), TeacherLink: teacherLink(nc.TeacherKey), Dashboard: dashboardLink(nc.Class.Code)}
}

// createClass makes a class with its variants setting, which is checked
// first so that a bad value creates nothing.
func (w *classWeb) createClass(c echo.Context, name, variants string) (*classroom.NewClass, error) {
	mode, err := classroom.CheckVariants(variants)
	if err != nil {
		return nil, err
	}
	ctx := c.Request().Context()
	nc, err := w.store().CreateClass(ctx, name)
	if err != nil {
		return nil, err
	}
	if mode != nc.Class.Variants {
		if nc.Class, err = w.store().SetVariants(ctx, nc.Class.Code, nc.TeacherKey, mode); err != nil {
			return nil, err
		}
	}
	return nc, nil
}

// apiCreate: POST /api/classes {"name", "variants"} -> {"code",
// "teacher_key",...}. variants is "per-learner" (the default) or "shared".
// The key is in this answer and nowhere else: it is stored hashed.
func (w *classWeb) apiCreate(c echo.Context) error {
	var in struct {
		Name     string `json:"name"`
		Variants string `json:"variants"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	nc, err := w.createClass(c, in.Name, in.Variants)
	if err != nil {
		return err
	}
	setCookie(c, TeacherCookie, nc.TeacherKey)
	return writeJSON(c, http.StatusCreated, newCreated(nc))
}

type joined struct {
	Learner *classroom.Learner `json:"learner"`
	Class   classSummary       `json:"class"`
}

// classSummary is what a learner may know of their class. Notice says
// why a closed (archived or expired) class takes no more answers.
type classSummary struct {
	Code     string        `json:"code"`
	Name     string        `json:"name"`
	Scenario *scenarioLink `json:"scenario,omitempty"`
	Status   string        `json:"status"`
	Notice   string        `json:"notice,omitempty"`
	// Settings are what the class's pages must hide or close.
	Settings learnerSettings `json:"settings"`
}

// apiJoin: POST /api/classes/{code}/join {"name", "student_id", "email"}
// (the last two optional); the session token goes only into the HttpOnly
// cookie.
func (w *classWeb) apiJoin(c echo.Context) error {
	var in classroom.Profile
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	sess, err := w.store().JoinAs(c.Request().Context(), c.Param("code"), in)
	if err != nil {
		return err
	}
	setLearnerCookies(c, sess.Token)
	return writeJSON(c, http.StatusCreated, joined{Learner: sess.Learner, Class: w.summarize(sess.Class)})
}

func (w *classWeb) summarize(cl *classroom.Class) classSummary {
	lc := lifecycleOf(cl, w.s.cfg.Class.Clock())
	return classSummary{Code: cl.Code, Name: cl.Name, Scenario: w.linkFor(cl.Scenario, cl.Settings), Status: lc.Status, Notice: lc.Notice,
		Settings: w.learnerSettingsOf(cl.Settings)}
}

// apiMe: GET /api/me, the learner's own class, progress and pushed scenario.
func (w *classWeb) apiMe(c echo.Context) error {
	l, cl, prog, err := w.me(c)
	if err != nil {
		if code := classroom.ErrorCode(err); code == classroom.EUNAUTHORIZED || code == classroom.ENOTFOUND {
			// Removed, or the class deleted: this browser is in no class
			// any more, so its pages stop following one (the page open
			// now says so once; the next ones stay quiet).
			clearLearnerCookies(c)
		}
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"learner": l, "class": w.summarize(cl), "progress": prog,
		"poll_ms": w.s.cfg.Class.Live.Poll.Milliseconds()})
}

func (w *classWeb) me(c echo.Context) (*classroom.Learner, *classroom.Class, []classroom.Progress, error) {
	ctx := c.Request().Context()
	token := learnerToken(c)
	l, cl, err := w.store().Learner(ctx, token)
	if err != nil {
		return nil, nil, nil, err
	}
	prog, err := w.store().LearnerProgress(ctx, cl.Code, classroom.Credentials{Session: token}, l.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	if prog == nil {
		prog = []classroom.Progress{}
	}
	hideClassVariants(prog)
	return l, cl, prog, nil
}

// apiTeacherSession: POST /api/teacher/session with the key as a Bearer
// token sets the teacher cookie and says where the dashboard is. The
// teacher link keeps the key in its #fragment, which browsers never send,
// so the key reaches no access log; its page posts it here.
func (w *classWeb) apiTeacherSession(c echo.Context) error {
	if err := w.s.readJSON(c, &struct{}{}); err != nil {
		return err
	}
	key := teacherKey(c)
	cl, err := w.store().TeacherClass(c.Request().Context(), key)
	if err != nil {
		return err
	}
	setCookie(c, TeacherCookie, key)
	return writeJSON(c, http.StatusOK, map[string]string{"code": cl.Code, "name": cl.Name, "dashboard": dashboardLink(cl.Code)})
}

func (w *classWeb) apiDashboard(c echo.Context) error {
	v, err := w.dashboard(c, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, v)
}

func (w *classWeb) apiLearnerProgress(c echo.Context) error {
	id, err := learnerID(c)
	if err != nil {
		return err
	}
	creds := classroom.Credentials{TeacherKey: teacherKey(c), Session: learnerToken(c)}
	prog, err := w.store().LearnerProgress(c.Request().Context(), c.Param("code"), creds, id)
	if err != nil {
		return err
	}
	if prog == nil {
		prog = []classroom.Progress{}
	}
	if creds.TeacherKey == "" {
		hideClassVariants(prog)
	}
	return writeJSON(c, http.StatusOK, prog)
}

func learnerID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &userError{Status: http.StatusNotFound, Field: "id", Msg: "no learner " + excerpt(c.Param("id"))}
	}
	return id, nil
}

func (w *classWeb) apiRemove(c echo.Context) error {
	id, err := learnerID(c)
	if err != nil {
		return err
	}
	if err := w.store().RemoveLearner(c.Request().Context(), c.Param("code"), teacherKey(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (w *classWeb) apiRotate(c echo.Context) error {
	if err := w.s.readJSON(c, &struct{}{}); err != nil {
		return err
	}
	cl, err := w.store().RotateCode(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]string{"code": cl.Code, "dashboard": dashboardLink(cl.Code), "join_link": joinLink(cl.Code)})
}

func (w *classWeb) apiJoining(c echo.Context) error {
	var in struct {
		Open *bool `json:"open"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	if in.Open == nil {
		return badRequest("open", "is required: true to let learners join, false to close joining")
	}
	cl, err := w.store().SetJoinOpen(c.Request().Context(), c.Param("code"), teacherKey(c), *in.Open)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"code": cl.Code, "join_open": cl.JoinOpen})
}
