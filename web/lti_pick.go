package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// pickGroup is one fieldset of the picker: a lesson and its exercises,
// or the presets.
type pickGroup struct {
	Title   string
	Choices []lti.Choice
}

func pickGroups(cs []lti.Choice) []pickGroup {
	var out []pickGroup
	for _, c := range cs {
		switch {
		case c.Kind == "lesson":
			out = append(out, pickGroup{Title: "Lesson: " + c.Title, Choices: []lti.Choice{c}})
		case c.Kind == "exercise" && len(out) > 0:
			out[len(out)-1].Choices = append(out[len(out)-1].Choices, c)
		default:
			if len(out) == 0 || out[len(out)-1].Title != "Playground presets" {
				out = append(out, pickGroup{Title: "Playground presets"})
			}
			out[len(out)-1].Choices = append(out[len(out)-1].Choices, c)
		}
	}
	return out
}

// ltiPickPage: GET /lti/pick/{token}, the content picker a deep linking
// launch lands on. The token in the path is the capability: the
// platform's iframe may not keep cookies.
func (s *Server) ltiPickPage(c echo.Context) error {
	if _, err := s.cfg.LTI.Picker(c.Request().Context(), c.Param("token")); err != nil {
		return s.ltiPageError(c, "Add to your course", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.render(c, http.StatusOK, LTIPickPage(s.page("Add to your course"), LTIPickData{Choices: s.cfg.LTI.Choices()}))
}

// ltiPick: POST /lti/pick/{token} with target=... (one or more): the
// signed LtiDeepLinkingResponse, posted back to the platform by the page.
func (s *Server) ltiPick(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := s.cfg.LTI.Picker(ctx, c.Param("token"))
	if err != nil {
		return s.ltiPageError(c, "Add to your course", err)
	}
	if err := s.ltiForm(c); err != nil {
		return err
	}
	picked := c.Request().PostForm["target"]
	if len(picked) == 0 {
		return s.render(c, http.StatusBadRequest, LTIPickPage(s.page("Add to your course"),
			LTIPickData{Choices: s.cfg.LTI.Choices(), Error: "target: tick at least one lesson, exercise or preset"}))
	}
	to, jwt, err := s.cfg.LTI.Respond(ctx, p, origin(c), picked)
	if err != nil {
		if pr := mapError(ltiError(err)); pr.Status == http.StatusBadRequest {
			return s.render(c, http.StatusBadRequest, LTIPickPage(s.page("Add to your course"),
				LTIPickData{Choices: s.cfg.LTI.Choices(), Error: pr.Message}))
		}
		return ltiError(err)
	}
	// The form posts to the platform: the policy allows that one origin.
	h := c.Response().Header()
	h.Set("Content-Security-Policy", strings.Replace(h.Get("Content-Security-Policy"), "form-action 'self'", "form-action 'self' "+p.ReturnOrigin, 1))
	h.Set("Cache-Control", "no-store")
	return s.render(c, http.StatusOK, LTIReturnPage(s.page("Add to your course"), to, jwt))
}

// ltiPageError is an LTI page's error as a page under the title of the
// page that failed: the picker's "Add to your course", the roster's "Class".
func (s *Server) ltiPageError(c echo.Context, title string, err error) error {
	pr, err := formError(ltiError(err))
	if err != nil {
		return err
	}
	return s.render(c, pr.Status, ErrorPage(s.page(title), pr.Status, pr.Message))
}

// rosterLink is the roster page of a class that came from a course whose
// platform offers its roster, "" otherwise (or without LTI).
func (s *Server) rosterLink(c echo.Context, code, key string) string {
	if s.cfg.LTI == nil {
		return ""
	}
	ctx := c.Request().Context()
	cl, err := s.cfg.Classroom.Teacher(ctx, code, key)
	if err != nil {
		return ""
	}
	if lc, err := s.cfg.LTI.Store().LTIContext(ctx, cl.ID); err != nil || lc.MembershipsURL == "" {
		return ""
	}
	return "/class/" + url.PathEscape(cl.Code) + "/roster"
}

// ltiRosterPage: GET /class/{code}/roster, the course's roster as the
// platform has it, beside who has joined (teacher key).
func (s *Server) ltiRosterPage(c echo.Context) error {
	ctx := c.Request().Context()
	c.Response().Header().Set("Cache-Control", "no-store")
	key := teacherKey(c)
	cl, err := s.cfg.Classroom.Teacher(ctx, c.Param("code"), key)
	if err == nil {
		var r *lti.Roster
		if r, err = s.cfg.LTI.Roster(ctx, cl.ID); err == nil {
			return s.render(c, http.StatusOK, LTIRosterPage(s.page("Class"), LTIRosterData{Class: cl.Name, Code: cl.Code, Members: r.Members, Short: r.Short}))
		}
	}
	// A join code changed since the link was made: the key still names
	// the class, so go to its roster under the code it has now (as the
	// dashboard's page does).
	if classroom.ErrorCode(err) == classroom.ENOTFOUND && key != "" {
		if cl, kerr := s.cfg.Classroom.TeacherClass(ctx, key); kerr == nil && cl.Code != c.Param("code") {
			return c.Redirect(http.StatusSeeOther, "/class/"+url.PathEscape(cl.Code)+"/roster")
		}
	}
	return s.ltiPageError(c, "Class", err)
}

func joinedCount(ms []lti.Member) int {
	n := 0
	for _, m := range ms {
		if m.LearnerID != 0 {
			n++
		}
	}
	return n
}

// roleWord is a member's role in a word: the LIS role names are URLs.
func roleWord(roles []string) string {
	for _, r := range roles {
		if strings.HasSuffix(r, "#Instructor") || strings.HasSuffix(r, "#Administrator") {
			return "Instructor"
		}
	}
	for _, r := range roles {
		if strings.HasSuffix(r, "#TeachingAssistant") {
			return "Teaching assistant"
		}
	}
	return "Learner"
}
