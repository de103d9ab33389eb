package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// newCrossOrigin builds the guard against cross-site requests: a page
// elsewhere must not join a class, push a scenario, remove a learner or
// answer an exercise with the cookies of whoever visits it, nor spend the
// server's run slots (a run, a chaos batch) through its visitors'
// browsers. Browsers say where a request comes from (Sec-Fetch-Site,
// Origin); a request with neither (curl, a script) has no victim's
// cookies to abuse and passes.
// The cookies' SameSite=Lax is the second wall, and the JSON endpoints'
// Content-Type rule (readBody) the third. Config.AllowedOrigins are
// trusted as the server's own.
func newCrossOrigin(allowed []string) (*http.CrossOriginProtection, error) {
	cop := http.NewCrossOriginProtection()
	for _, o := range allowed {
		if err := cop.AddTrustedOrigin(originOf(o)); err != nil {
			return nil, fmt.Errorf("allowed-origins: %w", err)
		}
	}
	return cop, nil
}

// originOf writes a configured origin as browsers send it: in lower case,
// without a trailing slash. The cross-site guard and the websocket
// upgrade both compare with it, so an origin trusted by one is by both.
func originOf(configured string) string {
	return strings.ToLower(strings.TrimRight(configured, "/"))
}

// sameOrigin refuses a state-changing request (anything but GET, HEAD and
// OPTIONS) that a browser sent from another site.
func (s *Server) sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.crossOrigin.Check(c.Request()); err != nil {
			return &userError{Status: http.StatusForbidden, Msg: "cross-site request refused: send it from this site's own pages"}
		}
		return next(c)
	}
}
