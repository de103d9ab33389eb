package web

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// Reads of the classroom store a learner's cookie sets off: GET /api/me
// (the learner's class and progress, polled by a page without a stream),
// its stream (/api/me/events) and page (/class/me), a device code's
// request, and the history of a run (/api/history, /playground/history),
// which notes a prediction's run for the learner. Each learner has a bucket of
// its own, sized for the pages' polls (learnerReadRate), and requests
// without a learner the server knows (a made-up cookie) share the
// address's, DefaultLearnerReadRate (flowLimiter).
var DefaultLearnerReadRate = Rate{PerMinute: 4000, Burst: 400}

// DefaultLearnerLookupRate bounds, per address, the learner cookies looked
// up in the store to tell whose session a read, a run or a check is
// (knownLearner): a hall of 500 arriving at once, then each of them again
// when the server's memory of it (a minute) runs out. A cookie not looked
// up is no one's session and spends the address's buckets.
var DefaultLearnerLookupRate = Rate{PerMinute: 1000, Burst: 500}

// learnerReadRate is each learner's own bucket: four tabs polling /api/me
// every poll, and never under 120 a minute, with half a minute's burst.
func learnerReadRate(poll time.Duration) Rate {
	per := 120.0
	if poll > 0 {
		per = max(per, 4*float64(time.Minute)/float64(poll))
	}
	return Rate{PerMinute: per, Burst: int(per / 2)}
}

// readSession names the learner whose bucket a read spends
// (knownLearner), or "" (the address's bucket) for a made-up cookie, or
// none.
func (w *classWeb) readSession(c echo.Context) string {
	if id, ok := w.s.knownLearner(c); ok {
		return "l:" + strconv.FormatInt(id, 10)
	}
	return ""
}

// knownLearner is the learner whose session cookie the request carries:
// one the server resolved within the last minute, without a store read,
// else the cookie looked up in the store while the address's lookups
// last (DefaultLearnerLookupRate). A made-up cookie is looked up only so
// often, whatever route it is sent to: past the lookups it is no one's.
func (s *Server) knownLearner(c echo.Context) (int64, bool) {
	token := learnerToken(c)
	if token == "" || s.cfg.Classroom == nil {
		return 0, false
	}
	if id, ok := s.learners.peek(token, s.cfg.Class.Clock()); ok {
		return id, true
	}
	if ok, _ := s.learnerLookups.take(clientAddress(c)); !ok {
		return 0, false
	}
	return s.learners.resolve(c.Request().Context(), s, token)
}

// learnerReads limits a route's requests that carry a learner's cookie
// (all of them when always is set) by w.reads: 429 with Retry-After and
// a message naming the limit.
func (w *classWeb) learnerReads(always bool) echo.MiddlewareFunc {
	limit := w.reads.middleware(w.m, w.readSession)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := limit(next)
		return func(c echo.Context) error {
			if !always && (learnerToken(c) == "" || w.store() == nil) {
				return next(c)
			}
			return limited(c)
		}
	}
}
