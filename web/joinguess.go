package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// DefaultWrongCodeRate bounds the joins with a code no class has, per
// address, apart from the joins themselves: a class behind one NAT
// mistypes a few codes, a script guessing codes mistypes them all. At 5 a
// minute an address tries 7,200 codes a day, not the 172,800 the join
// limit alone allowed.
var DefaultWrongCodeRate = Rate{PerMinute: 5, Burst: 30}

// wrongCodeGuard slows down join-code guessing: a join whose code names
// no class spends a token of its address's wrongCodes bucket, and once the
// bucket is empty every join from the address waits for it (429 with
// Retry-After), right codes included, since which codes are right is
// what is being guessed. A device code that names nothing (class_device.go)
// spends the same bucket: it is guessed the same way. Guesses sent at once
// count against the bucket while they are looked up (guessGate), so
// sending many together gains nothing.
func (w *classWeb) wrongCodeGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		addr := clientAddress(c)
		wait, err := w.guesses.enter(c.Request().Context(), addr)
		if err != nil {
			return &userError{Status: http.StatusServiceUnavailable, Code: codeBusy,
				Msg: "the request was cancelled while it waited for other codes from your address to be checked"}
		}
		if wait > 0 {
			secs := max(1, int(math.Ceil(wait.Seconds())))
			w.m.limited.WithLabelValues(w.wrongCodes.name).Inc()
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
			return &userError{Status: http.StatusTooManyRequests, Field: "code",
				Msg: fmt.Sprintf("too many class codes that name no class, or device codes that name no learner, from your address (at most %d, then %g a minute); check the code and try again in %d s",
					w.wrongCodes.rate.Burst, w.wrongCodes.rate.PerMinute, secs)}
		}
		wrong := false
		defer func() { w.guesses.leave(addr, wrong) }()
		err = next(c)
		var ce *classroom.Error
		wrong = errors.As(err, &ce) && ce.Code == classroom.ENOTFOUND ||
			err == nil && c.Response().Status == http.StatusNotFound // the form shows its error itself
		return err
	}
}
