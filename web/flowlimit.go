package web

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// DefaultSessionCheckRate is what each session the server issued (a
// learner of a class, a signed visitor) may check on its own bucket: a
// person answering, retrying and answering again, with room.
var DefaultSessionCheckRate = Rate{PerMinute: 20, Burst: 12}

// DefaultSessionBucketsPerAddress bounds the sessions of one address that
// have a bucket of their own: the largest class (classroom's
// MaxLearnersPerClass, 500) behind one NAT. Past it a session's requests
// spend the address's shared bucket, so what one address may do grows with
// the sessions behind it only up to this many.
const DefaultSessionBucketsPerAddress = 500

// flowLimiter is a per-address rate limit sized for a class behind one
// NAT. Each session the server issued at an address has a bucket of its
// own (perFlow), and requests without one (a script, a client that keeps
// no cookies) share the address's bucket (shared); a session whose own
// bucket is empty spends the shared one too. An address's limit so grows
// with the learners behind it, bounded by maxFlows of them, and is fair
// between them: one session that spends its bucket and the shared one,
// however fast, leaves its classmates' own buckets untouched.
// Sessions are the server's own (a learner token the store resolved, a
// visitor id it signed), never a made-up cookie, so a script cannot mint
// buckets; it has the shared one. Time is passed in (now), as for
// ipLimiter.
type flowLimiter struct {
	name     string
	shared   *ipLimiter
	perFlow  Rate
	maxFlows int
	now      func() time.Time

	mu    sync.Mutex
	addrs map[string]map[string]*rate.Limiter // address -> session -> bucket
	swept time.Time
}

func newFlowLimiter(name string, shared, perFlow Rate, maxFlows int, now func() time.Time) *flowLimiter {
	return &flowLimiter{name: name, shared: newIPLimiter(name, shared, now), perFlow: perFlow, maxFlows: maxFlows, now: now,
		addrs: map[string]map[string]*rate.Limiter{}}
}

// take spends a token of the session's bucket at addr, and when it has
// none (or the request has no session, or the address already has
// maxFlows sessions with buckets) a token of the address's shared bucket.
// own says whether the request had a bucket of its own.
func (l *flowLimiter) take(addr, session string) (ok bool, retry time.Duration, own bool) {
	if session == "" {
		ok, retry = l.shared.take(addr)
		return ok, retry, false
	}
	now := l.now()
	l.mu.Lock()
	l.sweep(now)
	flows := l.addrs[addr]
	lim := flows[session]
	if lim == nil && len(flows) < l.maxFlows {
		if flows == nil {
			flows = map[string]*rate.Limiter{}
			l.addrs[addr] = flows
		}
		lim = rate.NewLimiter(rate.Limit(l.perFlow.PerMinute/60), l.perFlow.Burst)
		flows[session] = lim
	}
	ownWait := time.Duration(-1)
	if lim != nil {
		r := lim.ReserveN(now, 1)
		if ownWait = r.DelayFrom(now); ownWait == 0 {
			l.mu.Unlock()
			return true, 0, true
		}
		r.CancelAt(now) // as ipLimiter.take: an early retry costs nothing
	}
	l.mu.Unlock()
	// The session's own bucket is empty: what the address has to share.
	if ok, retry = l.shared.take(addr); ok || ownWait < 0 {
		return ok, retry, ownWait >= 0
	}
	return false, min(retry, ownWait), true
}

// sweep forgets, at most once a minute, the sessions whose buckets have
// refilled: the count an address is bounded by is of its sessions active
// lately.
func (l *flowLimiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for addr, flows := range l.addrs {
		for s, lim := range flows {
			if lim.TokensAt(now) >= float64(l.perFlow.Burst) {
				delete(flows, s)
			}
		}
		if len(flows) == 0 {
			delete(l.addrs, addr)
		}
	}
}

// middleware refuses a request over its bucket with 429, a Retry-After
// in whole seconds and a message that says whose limit it was. session
// names the request's issued session ("" for none).
func (l *flowLimiter) middleware(m *metrics, session func(echo.Context) string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ok, retry, own := l.take(clientAddress(c), session(c))
			if ok {
				return next(c)
			}
			secs := max(1, int(math.Ceil(retry.Seconds())))
			m.limited.WithLabelValues(l.name).Inc()
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
			msg := fmt.Sprintf("too many %s from your address (at most %d at once, then %g a minute); try again in %d s",
				l.name, l.shared.rate.Burst, l.shared.rate.PerMinute, secs)
			if own {
				msg = fmt.Sprintf("too many %s from you and your address (you may make %d at once, then %g a minute, and then share your address's %d); try again in %d s",
					l.name, l.perFlow.Burst, l.perFlow.PerMinute, l.shared.rate.Burst, secs)
			}
			return &userError{Status: http.StatusTooManyRequests, Msg: msg}
		}
	}
}
