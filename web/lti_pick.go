package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

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
		return s.ltiPageError(c, err)
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
		return s.ltiPageError(c, err)
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

func (s *Server) ltiPageError(c echo.Context, err error) error {
	pr, err := formError(ltiError(err))
	if err != nil {
		return err
	}
	return s.render(c, pr.Status, ErrorPage(s.page("Add to your course"), pr.Status, pr.Message))
}
