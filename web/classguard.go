package web

import (
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// sameOrigin refuses a state-changing request (anything but GET, HEAD and
// OPTIONS) that a browser sent from another site: a page elsewhere must
// not join a class, push a scenario or remove a learner with the cookies
// of whoever visits it. Browsers say where a request comes from in
// Sec-Fetch-Site and Origin; a request with neither (curl, a script) has
// no victim's cookies to abuse and passes. The cookies' SameSite=Lax is the
// second wall, and JSON endpoints also demand application/json, which no
// HTML form can send.
func (s *Server) sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
		default:
			return crossSite()
		}
		if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(o, r) {
			return crossSite()
		}
		return next(c)
	}
}

func crossSite() error {
	return &userError{Status: http.StatusForbidden, Msg: "cross-site request refused: send it from this site's own pages"}
}

// originAllowed says whether an Origin header names this server (the host
// the request was sent to) or one of Config.AllowedOrigins.
func (s *Server) originAllowed(origin string, r *http.Request) bool {
	if origin == "null" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, o := range s.cfg.AllowedOrigins {
		if strings.EqualFold(strings.TrimRight(o, "/"), origin) {
			return true
		}
	}
	return false
}

// requireJSON refuses a body that is not application/json, so that an
// HTML form (which can only send form encodings or text/plain) can never
// reach a JSON endpoint.
func requireJSON(c echo.Context) error {
	mt, _, err := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if err != nil || mt != echo.MIMEApplicationJSON {
		return &userError{Status: http.StatusUnsupportedMediaType, Field: "Content-Type", Msg: "must be application/json"}
	}
	return nil
}
