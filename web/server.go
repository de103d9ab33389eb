// Package web serves the playground: pages rendered with templ, the JSON
// API, the websocket that runs scenarios live, and the embedded static
// files.
package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/static"
	"github.com/leaselab/playground/web/admission"
)

// Server is the playground's HTTP server. Create it with NewServer, serve
// its Handler, and call Shutdown to end live runs before exiting.
type Server struct {
	cfg    Config
	log    *slog.Logger
	echo   *echo.Echo
	conns  *connPool // open websockets
	dashes *connPool // open dashboard streams
	// mestreams counts the learners' class streams (class_mestream.go).
	mestreams *connPool
	assets    string // version of the static files, for cache-busting URLs

	// crossOrigin refuses state-changing requests from other sites.
	crossOrigin *http.CrossOriginProtection

	// adm admits every engine run: live runs, API runs, checks' runs.
	adm     *admission.Controller
	pool    *engine.RaftPool // warm Raft groups; nil boots a group per run
	doubled atomic.Int64     // live runs holding a slot too (at full speed)
	warmed  atomic.Bool      // the warm pool has been full once (health.go)

	metrics  *metrics
	wsQueued atomic.Int64 // bytes waiting in every websocket's queue

	// ctx ends every live session when the server shuts down.
	ctx      context.Context
	cancel   context.CancelFunc
	sessions sessionGroup

	// practice is the key that signs anonymous learners' practice
	// cookies (see practice.go).
	practice practiceKeys
	// visitor signs visitor ids, visitorIDs bounds how many one address
	// is issued, and learners remembers whose session tokens are whose
	// (visitor.go).
	visitor    visitorKeys
	visitorIDs *ipLimiter
	learners   learnerCache
	// learnerLookups bounds, per address, the session tokens looked up in
	// the store to tell whose they are (learner_reads.go).
	learnerLookups *ipLimiter
	// storeHealth is the classroom store's state as /healthz last saw it.
	storeHealth storeHealth

	// histories caches the answers of the GET routes that run a shared
	// scenario (api_history.go).
	histories *resultCache
}

// NewServer builds a server from cfg (zero bounds take their defaults).
func NewServer(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Lessons == nil {
		cat, err := lessons.Default()
		if err != nil {
			return nil, fmt.Errorf("lessons: %w", err)
		}
		cfg.Lessons = cat
	}
	cop, err := newCrossOrigin(cfg.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	adm, err := admission.New(cfg.admission())
	if err != nil {
		return nil, err
	}
	var pool *engine.RaftPool
	if cfg.WarmRaftGroups {
		if pool, err = engine.NewRaftPool(engine.PoolSizeForSlots(cfg.RunSlots)); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		pool:        pool,
		adm:         adm,
		crossOrigin: cop,
		cfg:         cfg,
		log:         cfg.Logger,
		conns:       newConnPool(cfg.MaxConnections, cfg.ConnectionsPerAddress).withSessions(cfg.ConnectionsPerSession, cfg.sessionConnsMax()),
		dashes:      newConnPool(cfg.MaxDashboardStreams, cfg.DashboardStreamsPerAddress),
		mestreams:   newConnPool(cfg.Class.Live.MaxStreams, cfg.Class.Live.StreamsPerAddress),
		assets:      assetVersion(static.FS),
		ctx:         ctx,
		cancel:      cancel,
	}
	s.histories = newResultCache(historyCacheEntries, historyCacheBytes)
	// An address is issued at least as many visitor ids at once as it may
	// hold sessions, so a deployment that raises one raises both.
	vr := visitorRate
	vr.Burst = max(vr.Burst, cfg.SessionsPerAddress)
	s.visitorIDs = newIPLimiter("visitor ids", vr, cfg.Class.Clock)
	s.learnerLookups = newIPLimiter("learner lookups", DefaultLearnerLookupRate, cfg.Class.Clock)
	s.metrics = newMetrics(s)
	s.echo = s.routes()
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// LiveRuns reports how many simulations are running now: live runs and
// runs in a slot (a live run at full speed holds both, and counts once).
func (s *Server) LiveRuns() int {
	st := s.adm.Stats()
	return st.Running[admission.Slot] + st.Running[admission.Live] - int(s.doubled.Load())
}

// poolStats are the warm pool's counters (zero without one).
func (s *Server) poolStats() engine.RaftPoolStats {
	if s.pool == nil {
		return engine.RaftPoolStats{}
	}
	return s.pool.Stats()
}

// QueuedRuns reports how many runs are waiting now, for a slot or a live
// place.
func (s *Server) QueuedRuns() int {
	st := s.adm.Stats()
	return st.Waiting[admission.Slot] + st.Waiting[admission.Live]
}

// MetricsHandler serves the Prometheus series, for a listener of its own
// when Config.SeparateMetrics keeps them off the main handler.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// RequestTimeout is the longest an HTTP request may take to answer: a run
// or a check that waits its longest for a slot, then runs its longest.
// An http.Server's WriteTimeout should be longer.
func (s *Server) RequestTimeout() time.Duration { return s.cfg.QueueWait + s.cfg.RunTimeout }

// Connections reports how many long-lived connections are open now:
// websockets, dashboard streams and learner streams.
func (s *Server) Connections() int {
	return s.conns.inUse() + s.dashes.inUse() + s.mestreams.inUse()
}

// Shutdown ends every live run and websocket (telling each browser the
// server is going away), ends every request waiting for a slot or running
// the engine (they answer 503 at once), and waits for the websockets to
// finish cleaning up, or for ctx to end. Stop accepting new connections
// alongside (http.Server.Shutdown): hijacked websockets are not closed by
// it, and it waits for the requests this ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.adm.Close()
	s.cancel()
	done := make(chan error, 1)
	go func() {
		s.sessions.wait()
		// Runs still holding a warm group finish with it; the idle ones
		// are shut down now.
		var err error
		if s.pool != nil {
			err = s.pool.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(middleware.Recover())
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURI: true, LogStatus: true, LogLatency: true, LogRemoteIP: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			s.log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request",
				slog.String("method", v.Method), slog.String("uri", loggedURI(v.URI)), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("remote", v.RemoteIP))
			return nil
		},
	}))
	e.Use(s.securityHeaders)

	// X-Forwarded-For is only believed from the proxies TrustProxies
	// names; anyone could send it and dodge the rate limits.
	e.IPExtractor = echo.ExtractIPDirect()
	w := s.newClassWeb()
	if s.cfg.Classroom != nil {
		s.cfg.Classroom = countingStore{Store: s.cfg.Classroom, errs: w.m.storeErrors}
	}
	e.Use(w.m.middleware)
	// The checks are registered by the lesson pages; their limit and
	// cross-site guard apply by route pattern, whoever registers them.
	checkLimit := w.checks.middleware(w.m, s.issuedSession)
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := s.sameOrigin(checkLimit(next))
		return func(c echo.Context) error {
			if c.Path() == checkRoute || c.Path() == giveUpRoute {
				return limited(c)
			}
			return next(c)
		}
	})

	e.GET("/", s.home)
	e.GET("/playground", s.playground)
	e.GET("/playground/history", s.historyPage, s.noCrossSiteFetch, w.learnerReads(false))
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	if !s.cfg.SeparateMetrics {
		e.GET("/metrics", w.m.handler(), s.metricsGuard)
	}
	e.GET("/api/presets", s.apiPresets)
	// A run and a chaos batch take a slot for whoever sends them: a page
	// elsewhere must not spend them with its visitors' browsers.
	e.POST("/api/run", s.apiRun, s.sameOrigin)
	e.POST("/api/chaos", s.apiChaos, s.sameOrigin)
	e.GET("/api/history", s.apiHistory, s.noCrossSiteFetch, w.learnerReads(false))
	e.GET("/ws/run", s.wsRun)
	s.lessonRoutes(e)
	s.ltiRoutes(e, w)
	e.GET("/static/:version/*", s.staticFile)
	e.HEAD("/static/:version/*", s.staticFile)
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, s.asset("img/favicon.svg"))
	})

	// Class pages and APIs: 404 on a server without a classroom store,
	// refused cross-site, and the writes limited per IP. Per route, not an
	// echo Group: a Group's middleware also answers every unmatched URL
	// (echo registers a catch-all for it).
	class := func(method, path string, h echo.HandlerFunc, extra ...echo.MiddlewareFunc) {
		e.Add(method, path, h, append([]echo.MiddlewareFunc{w.needStore, s.sameOrigin}, extra...)...)
	}
	joinLimit := w.joins.middleware(w.m)
	join := func(next echo.HandlerFunc) echo.HandlerFunc { return joinLimit(w.wrongCodeGuard(next)) }
	limit := w.creates.middleware(w.m)
	create := func(next echo.HandlerFunc) echo.HandlerFunc { return limit(w.classCreation(next)) }
	const get, post, del = http.MethodGet, http.MethodPost, http.MethodDelete

	class(get, "/class", w.classHome)
	class(post, "/class/new", w.pageCreate, s.boundForm, create)
	class(post, "/class/join", w.pageJoin, s.boundForm, join)
	class(get, "/class/me", w.learnerPage, w.learnerReads(false))
	class(post, "/class/me/device", w.pageDeviceCode, s.boundForm, w.learnerReads(false))
	class(get, "/class/continue", w.continuePage)
	class(post, "/class/continue", w.pageContinue, s.boundForm, join)
	class(get, "/class/teacher", w.teacherLinkPage)
	class(get, "/class/:code/teacher", w.dashboardPage)

	class(post, "/api/classes", w.apiCreate, create)
	class(post, "/api/classes/:code/join", w.apiJoin, join)
	class(get, "/api/me", w.apiMe, w.learnerReads(true))
	class(post, "/api/me/device-code", w.apiDeviceCode, w.learnerReads(false))
	class(post, "/api/classes/continue", w.apiContinue, join)
	class(get, "/api/me/events", w.apiMeEvents, w.learnerReads(false))
	class(post, "/api/teacher/session", w.apiTeacherSession)
	class(get, "/api/classes/:code/dashboard", w.apiDashboard)
	class(get, "/api/classes/:code/events", w.apiEvents)
	class(get, "/api/classes/:code/learners/:id/progress", w.apiLearnerProgress)
	class(del, "/api/classes/:code/learners/:id", w.apiRemove)
	class(post, "/api/classes/:code/scenario", w.apiPushScenario)
	class(post, "/api/classes/:code/code", w.apiRotate)
	class(post, "/api/classes/:code/joining", w.apiJoining)
	class(post, "/api/classes/:code/archive", w.apiArchive)
	class(get, "/api/classes/:code/progress.csv", w.apiProgressCSV)
	class(get, "/api/classes/:code/progress-wide.csv", w.apiWideCSV)
	class(get, "/api/classes/:code/answers.csv", w.apiAnswersCSV)
	class(get, "/api/classes/:code/mistakes", w.apiMistakes)
	class(post, "/api/classes/:code/reveal", w.apiReveal)
	class(post, "/api/classes/:code/reviews", w.apiReview)
	class(post, "/api/classes/:code/variants", w.apiVariants)
	class(get, "/api/classes/:code/attempts.csv", w.apiAttemptsCSV)
	class(post, "/api/classes/:code/regrade", w.apiRegrade)
	class(post, "/api/classes/:code/late-credit", w.apiLateCredit)
	class(get, "/api/classes/:code/gradebook.csv", w.apiGradebookCSV)
	class(post, "/api/classes/:code/push", w.apiPushScenario)
	class(post, "/api/classes/:code/settings", w.apiSettings)
	class(get, "/api/classes/:code/predictions", w.apiPredictions)
	s.metrics.knowRoutes(e)
	return e
}

// securityHeaders keeps pages from being framed or running foreign code.
// Scripts come only from /static, so no inline script is ever needed.
// Only the registered LTI platforms may frame them (frameAncestors).
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentPolicy(s.frameAncestors(c)))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// contentPolicy is the pages' content security policy with frame, the
// frame-ancestors directive of the page.
func contentPolicy(frame string) string {
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " + frame + "; form-action 'self'"
}

// asset is the URL of a static file, with the version that lets browsers
// cache it for good.
func (s *Server) asset(name string) string { return "/static/" + s.assets + "/" + name }

func (s *Server) staticFile(c echo.Context) error {
	name := c.Param("*")
	data, ok := staticPlain()[name]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such file")
	}
	h := c.Response().Header()
	if c.Param("version") == s.assets {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if gz, ok := staticGzipped()[name]; ok {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(c.Request()) {
			h.Set("Content-Encoding", "gzip")
			data = gz
		}
	}
	// A static file is small: it is sent whole or as one range. Many
	// ranges of it would go as a multipart body many times its size.
	if r := c.Request(); strings.Contains(r.Header.Get("Range"), ",") {
		r.Header.Del("Range")
	}
	http.ServeContent(c.Response(), c.Request(), name, time.Time{}, bytes.NewReader(data))
	return nil
}

// assetVersion hashes every static file, so a new build gets new URLs.
func assetVersion(fsys fs.FS) string {
	h := sha256.New()
	var names []string
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		data, _ := fs.ReadFile(fsys, n)
		h.Write([]byte(n))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
