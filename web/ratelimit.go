package web

import (
	"cmp"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// Rate is a token bucket's refill rate (PerMinute) and size (Burst).
type Rate struct {
	PerMinute float64
	Burst     int
}

// Per-IP rate limits on the requests that write to the classroom store.
// A class behind one school NAT shares one address, so the bursts let a
// whole lecture hall join (or answer) at once. Joins: the largest class
// (classroom's MaxLearnersPerClass, 500) at once, then 2 a second; the
// burst is spent once, and the rate, which is what would fill a database,
// is what it was. Checks: each learner (or signed visitor) has a bucket
// of its own (DefaultSessionCheckRate, flowlimit.go), and requests without
// a session share the address's (DefaultCheckRate). The load test
// (docs/load.md) plays a lecture hall of 400 arriving within a second.
// What they stop is a script filling the database; the storage limits
// (classroom.DefaultLimits) bound the rest, and the admission queue the
// engine's work.
var (
	DefaultJoinRate   = Rate{PerMinute: 120, Burst: 500}  // joins
	DefaultCreateRate = Rate{PerMinute: 2, Burst: 5}      // classes created
	DefaultCheckRate  = Rate{PerMinute: 4000, Burst: 400} // exercise checks without a session
)

// ipLimiter keeps one token bucket (a rate.Limiter) per client address.
// Time is passed in (now), so tests decide what a limiter sees.
type ipLimiter struct {
	name  string // the metrics' label
	what  string // what a refusal says is limited (name when empty)
	rate  Rate
	now   func() time.Time
	mu    sync.Mutex
	ips   map[string]*rate.Limiter
	swept time.Time
}

// newIPLimiter limits each address to r; now is the clock (time.Now
// outside tests).
func newIPLimiter(name string, r Rate, now func() time.Time) *ipLimiter {
	return &ipLimiter{name: name, rate: r, now: now, ips: map[string]*rate.Limiter{}}
}

// take spends a token of ip's bucket; when there is none it returns how
// long until there is one.
func (l *ipLimiter) take(ip string) (ok bool, retry time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	lim := l.ips[ip]
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(l.rate.PerMinute/60), l.rate.Burst)
		l.ips[ip] = lim
	}
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Minute
	}
	if d := r.DelayFrom(now); d > 0 {
		// Refused: give the token back, so that a client retrying too
		// early does not push its own next chance further away.
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// wait is how long until ip's bucket has a token, without spending one
// (0: it has one now).
func (l *ipLimiter) wait(ip string) time.Duration {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.ips[ip]
	if lim == nil {
		return 0
	}
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / (l.rate.PerMinute / 60) * float64(time.Second))
}

// tokens is how many tokens ip's bucket holds now (a bucket never used is
// full).
func (l *ipLimiter) tokens(ip string) float64 {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.ips[ip]
	if lim == nil {
		return float64(l.rate.Burst)
	}
	return lim.TokensAt(now)
}

// sweep forgets the buckets that have refilled, at most once a minute, so
// the map holds only the addresses seen lately.
func (l *ipLimiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for ip, lim := range l.ips {
		if lim.TokensAt(now) >= float64(l.rate.Burst) {
			delete(l.ips, ip)
		}
	}
}

// middleware refuses a request over the limit with 429, a Retry-After in
// whole seconds and a message that says which limit and when to retry.
func (l *ipLimiter) middleware(m *metrics) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ok, retry := l.take(clientAddress(c))
			if ok {
				return next(c)
			}
			secs := int(math.Ceil(retry.Seconds()))
			if secs < 1 {
				secs = 1
			}
			m.limited.WithLabelValues(l.name).Inc()
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
			return &userError{Status: http.StatusTooManyRequests,
				Msg: fmt.Sprintf("too many %s from your address (at most %d at once, then %g a minute); try again in %d s", cmp.Or(l.what, l.name), l.rate.Burst, l.rate.PerMinute, secs)}
		}
	}
}

// TrustProxies makes the server take the client's address from
// X-Forwarded-For when the request comes from one of these networks (the
// load balancer's), for the per-IP rate limits and the logs. Without it,
// the address is the TCP peer's, which behind a load balancer is the load
// balancer's own. Call it before serving.
func (s *Server) TrustProxies(cidrs []string) error {
	var opts []echo.TrustOption
	for _, c := range cidrs {
		_, n, err := parseCIDR(c)
		if err != nil {
			return fmt.Errorf("trusted-proxies: %q is not an address or network (like 10.0.0.0/8): %v", c, err)
		}
		opts = append(opts, echo.TrustIPRange(n))
	}
	if len(opts) == 0 {
		s.echo.IPExtractor = echo.ExtractIPDirect()
		return nil
	}
	opts = append(opts, echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false))
	s.echo.IPExtractor = echo.ExtractIPFromXFFHeader(opts...)
	return nil
}

// parseCIDR reads a network, or one address as a network of one.
func parseCIDR(s string) (net.IP, *net.IPNet, error) {
	if ip := net.ParseIP(s); ip != nil {
		bits := 128
		if ip.To4() != nil {
			ip, bits = ip.To4(), 32
		}
		return ip, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}, nil
	}
	return net.ParseCIDR(s)
}
