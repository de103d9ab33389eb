package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web/admission"
)

// metrics are the server's Prometheus series. Each Server has its own
// registry, so tests can run many servers in one process; /metrics serves
// it. Gauges that the server already counts (live runs, websockets) are
// read from those counters when scraped rather than kept twice.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.HistogramVec
	checks      *prometheus.CounterVec
	storeErrors *prometheus.CounterVec
	limited     *prometheus.CounterVec
	streams     prometheus.Gauge
	// guessesWaiting counts class and device codes waiting for others
	// from their address to be looked up (joinguess_gate.go).
	guessesWaiting prometheus.Gauge
	wsDropped      prometheus.Counter
	routes         map[string]bool // route patterns, the closed set of route labels
	runWait        *prometheus.HistogramVec
	runsRefused    *prometheus.CounterVec
	// connsRefused counts websockets and dashboard streams refused, by
	// pool and by which cap refused them.
	connsRefused *prometheus.CounterVec
	// idleClosed counts websockets closed for starting no run.
	idleClosed prometheus.Counter
	// liveEnded counts live runs ended because their turn was over while
	// others waited for a place.
	liveEnded prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "playground_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern (not the raw path, so codes and keys never become labels), method and status.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
	}, []string{"route", "method", "code"})
	m.checks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "playground_exercise_checks_total",
		Help: "Answers sent to POST /api/exercises/{id}/check, by status code.",
	}, []string{"code"})
	m.storeErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "playground_store_errors_total",
		Help: "Classroom store calls that failed with an internal error (not a user's mistake), by method.",
	}, []string{"op"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "playground_rate_limited_total",
		Help: "Requests refused with 429 by the per-IP rate limits, by limit.",
	}, []string{"limit"})
	m.streams = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "playground_dashboard_streams",
		Help: "Teacher dashboards receiving live updates now.",
	})
	m.guessesWaiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "playground_code_guesses_waiting",
		Help: "Joins and device-code continues waiting for codes sent before them from the same address to be looked up, so that codes sent at once cannot outrun the wrong-code limit.",
	})
	m.wsDropped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "playground_websocket_dropped_total",
		Help: "Websockets closed because their browser fell behind (its queue of messages passed its bound, or the queues together passed theirs).",
	})
	m.runWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "playground_run_wait_seconds",
		Help:    "Time a run waited in the admission queue before it started, by kind (live, run, check, chaos).",
		Buckets: []float64{.001, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
	}, []string{"kind"})
	m.runsRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "playground_runs_refused_total",
		Help: "Runs that got no slot, by reason: queue_full, session_queue_full, address_queue_full, timeout (waited the longest a request may), shutdown.",
	}, []string{"reason"})
	m.connsRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "playground_connections_refused_total",
		Help: "Websockets, dashboard streams and learner streams refused, by pool (websockets, dashboard streams, learner streams) and cap (full: the server's; address: one address's share; learner: one learner's).",
	}, []string{"pool", "cap"})
	m.idleClosed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "playground_websocket_idle_closed_total",
		Help: "Websockets closed because they started no run within --idle-timeout.",
	})
	m.liveEnded = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "playground_live_runs_turn_over_total",
		Help: "Live runs ended because they had held their place for --live-turn while others waited for one.",
	})
	for _, p := range []string{"websockets", "dashboard streams", "learner streams"} {
		for _, c := range []string{"full", "address"} {
			m.connsRefused.WithLabelValues(p, c)
		}
	}
	m.connsRefused.WithLabelValues("learner streams", "learner")
	for _, k := range []string{workLive, workRun, workCheck, workChaos} {
		m.runWait.WithLabelValues(k)
	}
	for _, r := range []string{refusedQueueFull, refusedSessionQueueFull, refusedAddressQueueFull, refusedTimeout, refusedShutdown} {
		m.runsRefused.WithLabelValues(r)
	}
	// Series that exist from the start, so a dashboard or an alert sees
	// a zero rather than nothing.
	m.checks.WithLabelValues("200")
	for _, name := range []string{"joins", "classes created", "checks", "wrong class codes", "device codes", "learner reads"} {
		m.limited.WithLabelValues(name)
	}
	m.storeErrors.WithLabelValues("record")
	m.reg.MustRegister(m.requests, m.checks, m.storeErrors, m.limited, m.streams, m.guessesWaiting, m.wsDropped, m.runWait, m.runsRefused,
		m.connsRefused, m.idleClosed, m.liveEnded,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_learner_streams",
			Help: "Learners' pages following their class live (GET /api/me/events).",
		}, func() float64 { return float64(s.mestreams.inUse()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "playground_raft_pool_hits_total",
			Help: "Runs that started on a warm Raft group (--warm-raft-groups).",
		}, func() float64 { return float64(s.poolStats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "playground_raft_pool_misses_total",
			Help: "Runs that booted their own Raft group: the pool was empty, off, or had none of their size.",
		}, func() float64 { return float64(s.poolStats().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_raft_pool_idle",
			Help: "Warm Raft groups waiting for a run now.",
		}, func() float64 {
			n := 0
			for _, c := range s.poolStats().Idle {
				n += c
			}
			return float64(n)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_runs_waiting",
			Help: "Runs waiting their turn now, for a slot or a live place.",
		}, func() float64 { return float64(s.QueuedRuns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_run_slots",
			Help: "The slots for runs going as fast as they can (--run-slots).",
		}, func() float64 { return float64(s.adm.Capacity(admission.Slot)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_run_slots_used",
			Help: "Slots taken now: API runs, checks' runs, chaos batches, live runs at full speed.",
		}, func() float64 { return float64(s.adm.Stats().Running[admission.Slot]) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_live_places_used",
			Help: "Live runs (over the websocket) running now, of --max-live-runs.",
		}, func() float64 { return float64(s.adm.Stats().Running[admission.Live]) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_websocket_queued_bytes",
			Help: "Bytes of messages waiting to be written to websockets, all sessions together.",
		}, func() float64 { return float64(s.wsQueued.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_live_runs",
			Help: "Simulations running now: live runs and runs in a slot together.",
		}, func() float64 { return float64(s.LiveRuns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_websocket_sessions",
			Help: "Open websocket connections.",
		}, func() float64 { return float64(s.conns.inUse()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "playground_live_runs_limit",
			Help: "The cap on live runs (over the websocket) at once (--max-live-runs).",
		}, func() float64 { return float64(s.cfg.MaxLiveRuns) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// middleware times every request under its route pattern and counts
// exercise checks.
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		status := c.Response().Status
		if err != nil {
			status = mapError(err).Status
		}
		route := c.Path()
		if !m.routes[route] {
			route = "unmatched"
		}
		code := strconv.Itoa(status)
		if status < 100 || status > 599 {
			code = "other"
		}
		m.requests.WithLabelValues(route, methodLabel(c.Request().Method), code).Observe(time.Since(start).Seconds())
		if route == checkRoute {
			m.checks.WithLabelValues(code).Inc()
		}
		return err
	}
}

// methodLabel is a request's method as a label: the methods the server
// answers, and "other" for anything a client makes up, so that made-up
// methods cannot add series.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "other"
}

// knowRoutes records the server's route patterns, the only route labels:
// a path no route matches, whatever the router made of it, is
// "unmatched". Call it once every route is registered.
func (m *metrics) knowRoutes(e *echo.Echo) {
	m.routes = map[string]bool{}
	for _, r := range e.Routes() {
		m.routes[r.Path] = true
	}
	// Echo names a method-less miss after its catch-all patterns; those
	// are not routes of ours.
	delete(m.routes, "/*")
	delete(m.routes, "")
}

// checkRoute is the route pattern of an exercise check.
const checkRoute = "/api/exercises/:id/check"

func (m *metrics) handler() echo.HandlerFunc {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return echo.WrapHandler(h)
}

// countingStore counts the internal errors of a classroom store, whoever
// calls it (class pages, checks, dashboards). A user's mistake (a wrong
// key, a taken name) is an answer, not an error of the store.
type countingStore struct {
	classroom.Store
	errs *prometheus.CounterVec
}

func (s countingStore) count(op string, err error) {
	if code := classroom.ErrorCode(err); code == classroom.EINTERNAL || code == classroom.EUNAVAILABLE {
		s.errs.WithLabelValues(op).Inc()
	}
}

func (s countingStore) CreateClass(ctx context.Context, name string) (*classroom.NewClass, error) {
	nc, err := s.Store.CreateClass(ctx, name)
	s.count("create_class", err)
	return nc, err
}

func (s countingStore) Teacher(ctx context.Context, code, key string) (*classroom.Class, error) {
	c, err := s.Store.Teacher(ctx, code, key)
	s.count("teacher", err)
	return c, err
}

func (s countingStore) TeacherClass(ctx context.Context, key string) (*classroom.Class, error) {
	c, err := s.Store.TeacherClass(ctx, key)
	s.count("teacher_class", err)
	return c, err
}

func (s countingStore) Join(ctx context.Context, code, name string) (*classroom.Session, error) {
	sess, err := s.Store.Join(ctx, code, name)
	s.count("join", err)
	return sess, err
}

func (s countingStore) JoinAs(ctx context.Context, code string, p classroom.Profile) (*classroom.Session, error) {
	sess, err := s.Store.JoinAs(ctx, code, p)
	s.count("join", err)
	return sess, err
}

func (s countingStore) Learner(ctx context.Context, token string) (*classroom.Learner, *classroom.Class, error) {
	l, c, err := s.Store.Learner(ctx, token)
	s.count("learner", err)
	return l, c, err
}

func (s countingStore) Record(ctx context.Context, token string, a classroom.Attempt) (*classroom.Attempt, error) {
	got, err := s.Store.Record(ctx, token, a)
	s.count("record", err)
	return got, err
}

func (s countingStore) LearnerProgress(ctx context.Context, code string, creds classroom.Credentials, id int64) ([]classroom.Progress, error) {
	p, err := s.Store.LearnerProgress(ctx, code, creds, id)
	s.count("learner_progress", err)
	return p, err
}

func (s countingStore) Dashboard(ctx context.Context, code, key string) (*classroom.Dashboard, error) {
	d, err := s.Store.Dashboard(ctx, code, key)
	s.count("dashboard", err)
	return d, err
}

func (s countingStore) PushScenario(ctx context.Context, code, key string, sc classroom.Scenario) (*classroom.Class, error) {
	c, err := s.Store.PushScenario(ctx, code, key, sc)
	s.count("push_scenario", err)
	return c, err
}

func (s countingStore) SetSettings(ctx context.Context, code, key string, set classroom.Settings) (*classroom.Class, error) {
	c, err := s.Store.SetSettings(ctx, code, key, set)
	s.count("set_settings", err)
	return c, err
}

// UpdateSettings counts the store's failures, not the change's own
// refusals (settings changed since the sender saw them), which come back
// as the change made them.
func (s countingStore) UpdateSettings(ctx context.Context, code, key string, change func(classroom.Settings) (classroom.Settings, error)) (*classroom.Class, error) {
	var refused error
	c, err := s.Store.UpdateSettings(ctx, code, key, func(cur classroom.Settings) (classroom.Settings, error) {
		set, err := change(cur)
		refused = err
		return set, err
	})
	if err == nil || err != refused {
		s.count("set_settings", err)
	}
	return c, err
}

func (s countingStore) RotateCode(ctx context.Context, code, key string) (*classroom.Class, error) {
	c, err := s.Store.RotateCode(ctx, code, key)
	s.count("rotate_code", err)
	return c, err
}

func (s countingStore) SetJoinOpen(ctx context.Context, code, key string, open bool) (*classroom.Class, error) {
	c, err := s.Store.SetJoinOpen(ctx, code, key, open)
	s.count("set_join_open", err)
	return c, err
}

func (s countingStore) RemoveLearner(ctx context.Context, code, key string, id int64) error {
	err := s.Store.RemoveLearner(ctx, code, key, id)
	s.count("remove_learner", err)
	return err
}

func (s countingStore) Subscribe(ctx context.Context, classID int64) (<-chan classroom.Change, error) {
	ch, err := s.Store.Subscribe(ctx, classID)
	s.count("subscribe", err)
	return ch, err
}

func (s countingStore) Ping(ctx context.Context) error {
	err := s.Store.Ping(ctx)
	s.count("ping", err)
	return err
}

func (s countingStore) Attempts(ctx context.Context, code, key, exercise string) ([]classroom.ClassAttempt, error) {
	out, err := s.Store.Attempts(ctx, code, key, exercise)
	s.count("attempts", err)
	return out, err
}

func (s countingStore) Rescore(ctx context.Context, code, key, exercise, rule string, learners []int64, verdicts []classroom.Verdict) ([]classroom.ScoreChange, error) {
	out, err := s.Store.Rescore(ctx, code, key, exercise, rule, learners, verdicts)
	s.count("rescore", err)
	return out, err
}

func (s countingStore) CreditLate(ctx context.Context, code, key string, learnerID int64, exercise, rule string, on bool, verdicts []classroom.Verdict) (*classroom.ScoreChange, error) {
	out, err := s.Store.CreditLate(ctx, code, key, learnerID, exercise, rule, on, verdicts)
	s.count("credit_late", err)
	return out, err
}

func (s countingStore) LiftLate(ctx context.Context, code, key string, until time.Time) ([]classroom.LearnerExercise, error) {
	out, err := s.Store.LiftLate(ctx, code, key, until)
	s.count("lift_late", err)
	return out, err
}
