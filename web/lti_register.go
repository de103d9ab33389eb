package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/lti"
)

// maxRegistrationToken bounds the platform's registration token (a JWT
// of a kilobyte or two on Moodle and Canvas).
const maxRegistrationToken = 16 << 10

// registerTitle names the registration pages.
const registerTitle = "Register with your course platform"

// ltiRegisterPage: GET /lti/register?key=K&openid_configuration=URL
// &registration_token=T, what a platform opens when its administrator
// pastes the tool's registration URL. With a valid key it reads the
// platform's configuration and asks the administrator to confirm; it
// registers nothing by itself.
func (s *Server) ltiRegisterPage(c echo.Context) error {
	d, err := s.registration(c, c.QueryParams().Get)
	if err != nil {
		return s.registerError(c, err, d.Config)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.render(c, http.StatusOK, LTIRegisterPage(s.page(registerTitle), d))
}

// ltiRegister: POST /lti/register, the administrator's confirmation: the
// tool registers itself at the platform's registration endpoint and
// records the platform; the page that answers tells the platform's
// window to close.
func (s *Server) ltiRegister(c echo.Context) error {
	if err := s.ltiForm(c); err != nil {
		return err
	}
	d, err := s.registration(c, c.Request().PostForm.Get)
	if err != nil {
		return s.registerError(c, err, d.Config)
	}
	p, err := s.cfg.LTI.Register(c.Request().Context(), d.Config, d.Token, origin(c))
	if err != nil {
		return s.registerError(c, err, d.Config)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.render(c, http.StatusOK, LTIRegisteredPage(s.page(registerTitle), *p))
}

// registration checks a registration request's key, then reads the
// platform's configuration it points at (never before the key checks).
func (s *Server) registration(c echo.Context, get func(string) string) (LTIRegisterData, error) {
	d := LTIRegisterData{Key: get("key"), Token: get("registration_token")}
	ctx := c.Request().Context()
	if err := s.cfg.LTI.CheckRegistrationKey(ctx, d.Key); err != nil {
		return d, err
	}
	if len(d.Token) > maxRegistrationToken {
		return d, badRequest("registration_token", "must be at most 16384 bytes")
	}
	cfg, err := s.cfg.LTI.PlatformConfiguration(ctx, get("openid_configuration"))
	if err != nil {
		return d, err
	}
	d.Config = cfg
	s.frameRegistration(c, cfg)
	return d, nil
}

// frameRegistration lets the platform being registered frame the
// registration pages: it opens them in its own window before the tool
// knows it.
func (s *Server) frameRegistration(c echo.Context, cfg *lti.PlatformConfig) {
	var origins []string
	for _, u := range []string{cfg.URL, cfg.Issuer} {
		if o := lti.Origin(u); o != "" && !slices.Contains(origins, o) {
			origins = append(origins, o)
		}
	}
	if len(origins) > 0 {
		c.Response().Header().Set("Content-Security-Policy", contentPolicy("frame-ancestors "+strings.Join(origins, " ")))
	}
}

// registerError answers a refused registration with a page that says
// what failed (or the API's error to a client that asked for JSON).
func (s *Server) registerError(c echo.Context, err error, cfg *lti.PlatformConfig) error {
	if cfg != nil {
		s.frameRegistration(c, cfg)
	}
	pr, err := formError(ltiError(err))
	if err != nil {
		return err
	}
	return s.render(c, pr.Status, ErrorPage(s.page(registerTitle), pr.Status, pr.Message))
}
