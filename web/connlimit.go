package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// connRetryAfter is what a refused connection is told to wait, in
// seconds: places free as sockets go idle (Config.IdleTimeout) or runs
// end, not on a schedule.
const connRetryAfter = 30

// connRefusal is the answer to a connection its pool refused (nil when
// it was not): 503 when the server is full, 429 when the address has its
// share. what names the pool's connections ("websockets").
func (s *Server) connRefusal(c echo.Context, why int, what string, total, perAddr int) error {
	switch why {
	case poolOK:
		return nil
	case poolAddressFull:
		s.metrics.connsRefused.WithLabelValues(what, "address").Inc()
		c.Response().Header().Set("Retry-After", strconv.Itoa(connRetryAfter))
		return &userError{Status: http.StatusTooManyRequests,
			Msg: fmt.Sprintf("your network already has %d %s open, the most one address may; close some tabs or try again in %d s", perAddr, what, connRetryAfter)}
	default:
		s.metrics.connsRefused.WithLabelValues(what, "full").Inc()
		c.Response().Header().Set("Retry-After", strconv.Itoa(connRetryAfter))
		return &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
			Msg: fmt.Sprintf("busy: this server has as many %s open as it allows (%d); try again in %d s", what, total, connRetryAfter)}
	}
}
