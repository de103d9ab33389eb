package web

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// metricsGuard keeps /metrics on the public port private: the series say
// how loaded the server is, which routes are hit and how often the store
// fails, which is a map for an attacker. With Config.MetricsToken set, a
// scrape must carry it (Authorization: Bearer TOKEN); without one, only a
// client on this machine is answered (a loopback peer, not relayed by a
// proxy). A separate --metrics-addr listener is the operator's to expose
// and has no guard.
func (s *Server) metricsGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if tok := s.cfg.MetricsToken; tok != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if ok && subtle.ConstantTimeCompare([]byte(got), []byte(tok)) == 1 {
				return next(c)
			}
			return &userError{Status: http.StatusUnauthorized, Field: "Authorization",
				Msg: "/metrics needs the metrics token (--metrics-token) as a Bearer token"}
		}
		if loopbackPeer(r) && r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == "" {
			return next(c)
		}
		return &userError{Status: http.StatusForbidden,
			Msg: "/metrics answers only on this machine: scrape it from here, set --metrics-token, or serve it apart with --metrics-addr"}
	}
}

// loopbackPeer reports whether the TCP peer is this machine.
func loopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
