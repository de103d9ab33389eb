package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// ltiRoutes serves the LTI 1.3 tool when the server has one: its keys,
// the login and launch a platform sends (cross-site by design, so
// without the same-origin guard), dynamic registration, the content
// picker of deep linking, and the course roster and the grades sent to
// the course for the dashboard.
func (s *Server) ltiRoutes(e *echo.Echo, w *classWeb) {
	if s.cfg.LTI == nil {
		return
	}
	// A login writes a row before anyone is known: logins are limited
	// per address like joins, which a class behind one NAT fits in.
	logins := newIPLimiter("lti logins", DefaultJoinRate, s.cfg.Class.Clock).middleware(w.m)
	e.GET("/lti/jwks", s.ltiJWKS)
	e.GET("/lti/login", s.ltiLogin, logins)
	e.POST("/lti/login", s.ltiLogin, logins)
	// A launch follows a login, and reads the platforms and checks a
	// token of up to 64 KB before it knows who sent it: limited the same.
	launches := newIPLimiter("lti launches", DefaultJoinRate, s.cfg.Class.Clock).middleware(w.m)
	e.POST("/lti/launch", s.ltiLaunch, launches, w.needStore)
	// Dynamic registration reads a platform's URLs: limited like logins,
	// and nothing is fetched before the registration key checks.
	e.GET("/lti/register", s.ltiRegisterPage, logins)
	e.POST("/lti/register", s.ltiRegister, logins, s.sameOrigin)
	e.GET("/lti/pick/:token", s.ltiPickPage)
	e.POST("/lti/pick/:token", s.ltiPick, s.sameOrigin)
	e.GET("/api/classes/:code/lti/roster", s.ltiRoster, w.needStore)
	e.GET("/api/classes/:code/lti/grades", s.ltiGrades, w.needStore, s.sameOrigin)
	e.POST("/api/classes/:code/lti/grades/retry", s.ltiGradesRetry, w.needStore, s.sameOrigin)
	e.GET("/class/:code/roster", s.ltiRosterPage, w.needStore)
}

// ltiError turns the lti package's refusals into the API's errors.
func ltiError(err error) error {
	var le *lti.Error
	if errors.As(err, &le) {
		return &userError{Status: le.Status, Field: le.Field, Msg: le.Msg}
	}
	return err
}

func (s *Server) ltiJWKS(c echo.Context) error {
	b, err := s.cfg.LTI.JWKS(c.Request().Context())
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, "application/json", b)
}

// ltiForm reads a platform's form (or query, for a GET login), bounded:
// an id_token is a few kilobytes.
func (s *Server) ltiForm(c echo.Context) error {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, lti.MaxIDTokenLen+16<<10)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge("body", mbe.Limit, "")
		}
		return badRequest("body", "must be a form (application/x-www-form-urlencoded)")
	}
	return nil
}

// ltiLogin: GET or POST /lti/login, the platform's third-party initiated
// login: a redirect to its authorization endpoint.
func (s *Server) ltiLogin(c echo.Context) error {
	if err := s.ltiForm(c); err != nil {
		return err
	}
	req, err := lti.ParseLogin(c.Request().Form)
	if err != nil {
		return ltiError(err)
	}
	to, state, err := s.cfg.LTI.Login(c.Request().Context(), req, origin(c)+"/lti/launch")
	if err != nil {
		return ltiError(err)
	}
	c.SetCookie(&http.Cookie{
		Name: ltiStateCookie(state), Value: state, Path: "/lti/", MaxAge: int(lti.LoginTTL.Seconds()), HttpOnly: true,
		SameSite: http.SameSiteNoneMode, Secure: true, Partitioned: true,
	})
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Redirect(http.StatusFound, to)
}

// ltiStateCookie names the cookie that binds a login's state to the
// browser that started it (ltiLogin): one per login, as a course page may
// start two at once, named after the state's first characters. "" for a
// state that is not one the tool makes.
func ltiStateCookie(state string) string {
	if len(state) < 16 || strings.ContainsFunc(state, func(r rune) bool {
		return !(r == '-' || r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		return ""
	}
	return "pg_lti_state_" + state[:16]
}

// ltiLoggedInHere refuses a launch from a browser other than the one
// that started its login: the id_token and state of someone's own login,
// posted from another's browser by a page of theirs, would sign that
// browser in as them, and its answers would be their credit. It is
// checked before the token, so such a launch spends nothing.
func ltiLoggedInHere(c echo.Context, state string) error {
	name := ltiStateCookie(state)
	if name != "" {
		if ck, err := c.Cookie(name); err == nil && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(state)) == 1 {
			return nil
		}
	}
	return &userError{Status: http.StatusUnauthorized, Field: "state",
		Msg: "this browser did not start the login of this launch (or it took longer than " + lti.LoginTTL.String() + "): start again from the course"}
}

// ltiLaunch: POST /lti/launch, the id_token and state. Every check that
// fails answers 401 naming it, and creates nothing; a good launch sets
// the session cookies for the platform's iframe and redirects (303), so
// that a reload never posts the token again.
func (s *Server) ltiLaunch(c echo.Context) error {
	if err := s.ltiForm(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	f, err := lti.ParseLaunchForm(c.Request().PostForm)
	if err != nil {
		return ltiError(err)
	}
	if err := ltiLoggedInHere(c, f.State); err != nil {
		return err
	}
	l, err := s.cfg.LTI.Verify(ctx, f)
	if err != nil {
		return ltiError(err)
	}
	out, err := s.cfg.LTI.Accept(ctx, l, origin(c))
	if err != nil {
		return ltiError(err)
	}
	// The login is spent: its state's cookie goes.
	c.SetCookie(&http.Cookie{Name: ltiStateCookie(f.State), Value: "", Path: "/lti/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteNoneMode, Secure: true, Partitioned: true})
	if out.TeacherKey != "" {
		setFramedCookie(c, TeacherCookie, out.TeacherKey, true)
	}
	if out.Session != nil {
		setFramedCookie(c, LearnerCookie, out.Session.Token, true)
		setFramedCookie(c, ClassHintCookie, "1", false)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Redirect(http.StatusSeeOther, out.Landing)
}

// setFramedCookie sets a cookie of an LTI session: the tool's pages live
// in the platform's iframe, a third-party context, where only
// SameSite=None cookies are sent, and browsers keep them apart per
// platform (Partitioned, CHIPS). Browsers take Secure cookies from
// http://localhost, which is how the tests run.
func setFramedCookie(c echo.Context, name, value string, httpOnly bool) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: int(cookieAge.Seconds()), HttpOnly: httpOnly,
		SameSite: http.SameSiteNoneMode, Secure: true, Partitioned: true,
	})
}

// frameAncestors is the CSP directive that lets the registered
// platforms, and nobody else, frame the pages.
func (s *Server) frameAncestors(c echo.Context) string {
	if s.cfg.LTI == nil {
		return "frame-ancestors 'none'"
	}
	o := s.cfg.LTI.FrameAncestors(c.Request().Context())
	if len(o) == 0 {
		return "frame-ancestors 'none'"
	}
	return "frame-ancestors " + strings.Join(o, " ")
}

// ltiRoster: GET /api/classes/{code}/lti/roster, the course's roster as
// the platform has it, each member with the learner they are in the
// class, and "short" when the list stops before the platform's does
// (teacher key).
func (s *Server) ltiRoster(c echo.Context) error {
	ctx := c.Request().Context()
	cl, err := s.cfg.Classroom.Teacher(ctx, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	r, err := s.cfg.LTI.Roster(ctx, cl.ID)
	if err != nil {
		return ltiError(err)
	}
	return writeJSON(c, http.StatusOK, r)
}

// ltiScored queues a learner's standing on an exercise for the course's
// gradebook, when the learner came by an LTI launch into a graded link
// (the queue finds out): the exercise's column and its lesson's, as the
// gradebook export has them (lti.Tool.EnqueueStanding). Server.scoreChanged
// calls it, the one place a best score changes, and so does a submitted
// open answer, which makes its columns wait for the teacher. Queueing
// writes rows and sends nothing, so the answer does not wait for the
// platform; a failure to queue is logged, never the learner's problem.
func (s *Server) ltiScored(ctx context.Context, ch classroom.ScoreChange) {
	if s.cfg.LTI == nil {
		return
	}
	if err := s.cfg.LTI.EnqueueStanding(ctx, ch.ClassID, ch.LearnerID, ch.Exercise); err != nil {
		s.log.Warn("lti: could not queue a score", slog.Any("err", err))
	}
}
