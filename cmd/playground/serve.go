package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/store"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/web"
)

// shutdownGrace bounds how long a shutdown waits for requests and live runs
// to end. They end at once (a run waiting or running is answered 503), so
// this is a backstop: past it the remaining connections are closed, and
// the process exits within 5 s of SIGTERM.
const shutdownGrace = 4 * time.Second

// serveCmd serves the web playground until ctx is cancelled (SIGINT or
// SIGTERM), then ends live runs and returns.
func serveCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	addr := fs.String("addr", env("PLAYGROUND_ADDR", ":8080"), "listen on `host:port` (env PLAYGROUND_ADDR)")
	metricsAddr := fs.String("metrics-addr", env("PLAYGROUND_METRICS_ADDR", ""), "serve /metrics on `host:port` instead of --addr, like 127.0.0.1:9090 to keep it private (env PLAYGROUND_METRICS_ADDR)")
	var cfg web.Config
	fs.StringVar(&cfg.MetricsToken, "metrics-token", env("PLAYGROUND_METRICS_TOKEN", ""), "without --metrics-addr, /metrics on --addr answers only scrapes from this machine, or those carrying this `token` as a Bearer token (env PLAYGROUND_METRICS_TOKEN)")
	var origins string
	ef := &envFlags{fs: fs, getenv: getenv}
	ef.intVar(&cfg.MaxLiveRuns, "max-live-runs", "PLAYGROUND_MAX_LIVE_RUNS", 0, fmt.Sprintf(
		"live runs (over the websocket) at once, all users together; 0 sizes it from --memory-budget (%d KiB each) and the cores (%d each): %d here with the default budget",
		web.LiveRunBytes>>10, web.LiveRunsPerCore, web.LiveRunsFor(web.DefaultMemoryBudget, runtime.GOMAXPROCS(0))))
	ef.intVar(&cfg.MaxConnections, "max-connections", "PLAYGROUND_MAX_CONNECTIONS", 0, fmt.Sprintf(
		"open websockets; 0 is --max-live-runs and a quarter more, at least %d", web.DefaultMaxConnections))
	ef.int64Var(&cfg.MaxMessageBytes, "max-message-bytes", "PLAYGROUND_MAX_MESSAGE_BYTES", web.DefaultMaxMessageBytes, "bytes in one websocket message")
	ef.int64Var(&cfg.MaxBodyBytes, "max-body-bytes", "PLAYGROUND_MAX_BODY_BYTES", web.DefaultMaxBodyBytes, "bytes in a POST body")
	ef.durationVar(&cfg.MaxRunTime, "max-run-time", "PLAYGROUND_MAX_RUN_TIME", web.DefaultMaxRunTime, "wall time one live run may last, pauses included")
	ef.floatVar(&cfg.MessageRate, "message-rate", "PLAYGROUND_MESSAGE_RATE", web.DefaultMessageRate, "websocket messages a second from one browser")
	ef.intVar(&cfg.RunSlots, "run-slots", "PLAYGROUND_RUN_SLOTS", 2*runtime.GOMAXPROCS(0), "runs going as fast as they can at once (API runs, checks' runs, live runs at full speed); a run paced for watching takes run-slots/max-live-runs of one")
	ef.intVar(&cfg.RunQueue, "run-queue", "PLAYGROUND_RUN_QUEUE", web.DefaultRunQueuePerSlot*2*runtime.GOMAXPROCS(0), "runs waiting for a slot, all clients together (default 128 per slot); past it, 503")
	warm := envDefault(ef, "warm-raft-groups", "PLAYGROUND_WARM_RAFT_GROUPS", true, strconv.ParseBool)
	fs.BoolVar(&cfg.WarmRaftGroups, "warm-raft-groups", warm, "keep Raft groups booted ahead of time, one per run slot, so runs start without an election (env PLAYGROUND_WARM_RAFT_GROUPS)")
	ef.durationVar(&cfg.RunTimeout, "run-timeout", "PLAYGROUND_RUN_TIMEOUT", web.DefaultRunTimeout, "longest an API run runs once it has its slot; a check's runs together")
	// Its default follows --run-timeout (four of them), so it is left
	// zero unless given.
	ef.durationVar(&cfg.ChaosTimeout, "chaos-timeout", "PLAYGROUND_CHAOS_TIMEOUT", 0, "longest a chaos batch (POST /api/chaos) runs once it has its slot, between 100ms and 1h; past it, 503 (default 4 x --run-timeout, 2m)")
	ef.durationVar(&cfg.QueueWait, "queue-wait", "PLAYGROUND_QUEUE_WAIT", web.DefaultQueueWait, "longest an API run or a check waits for a slot before 503 with Retry-After")
	ef.floatVar(&cfg.SessionShare, "session-share", "PLAYGROUND_SESSION_SHARE", web.DefaultSessionShare, "share of the slots one learner session (or one address without a session) may hold at once")
	ef.floatVar(&cfg.AddressShare, "address-share", "PLAYGROUND_ADDRESS_SHARE", web.DefaultAddressShare, "share of the slots one address may hold at once, all its sessions together (a class behind one NAT)")
	ef.sizeVar(&cfg.MaxQueueBytes, "max-queue-bytes", "PLAYGROUND_MAX_QUEUE_BYTES", web.DefaultMaxQueueBytes, "`bytes` of messages waiting for one browser (like 8MiB); a browser that does not read is dropped past it")
	ef.sizeVar(&cfg.MemoryBudget, "memory-budget", "PLAYGROUND_MEMORY_BUDGET", web.DefaultMemoryBudget, "`bytes` of memory to plan for (like 1GiB): the Go runtime's soft limit unless GOMEMLIMIT is set (below it the collector runs at GOGC=400 unless GOGC is set), and a quarter of it for every websocket's waiting messages together")
	fs.StringVar(&origins, "allowed-origins", env("PLAYGROUND_ALLOWED_ORIGINS", ""), "extra `origins` trusted as this server's own (websockets, runs, chaos batches, class and check requests), comma-separated (env PLAYGROUND_ALLOWED_ORIGINS)")
	lessonsDir := fs.String("lessons", env("PLAYGROUND_LESSONS", ""), "serve the lessons and exercises in `folder` instead of the built-in ones (env PLAYGROUND_LESSONS)")
	dataDir := fs.String("data", env("PLAYGROUND_DATA", store.DefaultDataDir), "`folder` for the classroom's SQLite file, created if missing (env PLAYGROUND_DATA; unused with DATABASE_URL)")
	databaseURL := env("DATABASE_URL", "")
	var proxies string
	fs.StringVar(&proxies, "trusted-proxies", env("PLAYGROUND_TRUSTED_PROXIES", ""), "load balancer `networks` (CIDRs or addresses, comma-separated) whose X-Forwarded-For names the client, for per-IP rate limits (env PLAYGROUND_TRUSTED_PROXIES)")
	logFormat := fs.String("log-format", env("PLAYGROUND_LOG_FORMAT", "text"), "request log format: text or json (env PLAYGROUND_LOG_FORMAT)")
	// Classroom bounds (serve_class.go).
	classf := addClassFlags(ef)
	sharef := addShareFlags(ef)
	livef := addLearnerLiveFlags(ef)
	var storeOpts classroom.Options
	cpuProfile := fs.String("cpu-profile", "", "write a CPU profile of the server (pprof format) to `file` from start-up until it stops, to see where its time goes under a load test (docs/load.md)")
	check := fs.Bool("healthcheck", false, "do not serve: ask the server at --addr for /healthz and exit 0 if it is healthy (for a container HEALTHCHECK)")
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	if *check {
		return healthcheck(ctx, *addr)
	}
	if len(ef.errs) > 0 {
		return &usageError{ef.errs[0]}
	}
	if given(fs, "chaos-timeout") || getenv("PLAYGROUND_CHAOS_TIMEOUT") != "" {
		if cfg.ChaosTimeout < web.MinChaosTimeout || cfg.ChaosTimeout > web.MaxChaosTimeout {
			return usagef("--chaos-timeout: must be between 100ms and 1h, not %s", cfg.ChaosTimeout)
		}
	}
	// In a Config zero means "the default"; on the command line it is a
	// mistake.
	for _, b := range []struct {
		name string
		v    float64
	}{
		{"max-message-bytes", float64(cfg.MaxMessageBytes)}, {"max-body-bytes", float64(cfg.MaxBodyBytes)},
		{"message-rate", cfg.MessageRate}, {"max-run-time", cfg.MaxRunTime.Seconds()},
		{"max-queue-bytes", float64(cfg.MaxQueueBytes)}, {"memory-budget", float64(cfg.MemoryBudget)},
		{"run-slots", float64(cfg.RunSlots)}, {"run-queue", float64(cfg.RunQueue)}, {"queue-wait", cfg.QueueWait.Seconds()}, {"run-timeout", cfg.RunTimeout.Seconds()},
		{"session-share", cfg.SessionShare}, {"address-share", cfg.AddressShare},
	} {
		if b.v <= 0 {
			return usagef("--%s: must be positive, not %g", b.name, b.v)
		}
	}
	// 0 asks for the sizing; below it is a mistake.
	if cfg.MaxLiveRuns < 0 {
		return usagef("--max-live-runs: must be 0 (sized from the memory budget and the cores) or positive, not %d", cfg.MaxLiveRuns)
	}
	if cfg.MaxConnections < 0 {
		return usagef("--max-connections: must be 0 (sized from --max-live-runs) or positive, not %d", cfg.MaxConnections)
	}
	switch *logFormat {
	case "text":
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(stderr, nil))
	default:
		return usagef("--log-format: must be text or json, not %q", *logFormat)
	}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.AllowedOrigins = append(cfg.AllowedOrigins, o)
		}
	}
	if err := classf.apply(&cfg, &storeOpts); err != nil {
		return err
	}
	if err := sharef.apply(&cfg); err != nil {
		return err
	}
	if err := livef.apply(&cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return &usageError{err}
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return usagef("--cpu-profile: %v", err)
		}
		defer stop()
	}
	// The budget is the runtime's soft limit too, so the collector works
	// harder before the process passes it, and below it the collector runs
	// less often (web.GCPercent); GOMEMLIMIT and GOGC, the runtime's own
	// settings, win when they are set.
	web.ApplyMemoryBudget(cfg.MemoryBudget, getenv)
	// A teacher's folder is read and checked whole before serving, so a
	// broken file stops start-up with its file and line, never a broken page.
	cat, err := lessons.Open(*lessonsDir)
	if err != nil {
		return &usageError{fmt.Errorf("--lessons: %w", err)}
	}
	cfg.Lessons = cat
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	// /metrics on an address of its own, which a firewall or the
	// loopback interface can keep private; the main address then has none.
	var mln net.Listener
	if *metricsAddr != "" {
		if mln, err = net.Listen("tcp", *metricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer mln.Close()
		cfg.SeparateMetrics = true
	}
	// The classroom store: the SQLite file in --data, or PostgreSQL when
	// DATABASE_URL is set. It is closed last, after the HTTP server and
	// the live sessions have stopped, so no answer is cut off mid-write.
	st, err := store.Open(ctx, store.Config{DatabaseURL: databaseURL, DataDir: *dataDir, Options: storeOpts})
	if err != nil {
		ln.Close()
		if databaseURL != "" {
			return fmt.Errorf("DATABASE_URL: opening the classroom database: %w", err)
		}
		return fmt.Errorf("--data %s: opening the classroom database: %w", *dataDir, err)
	}
	closeStore := sync.OnceValue(st.Close)
	defer closeStore()
	cfg.Classroom = st
	// The LTI tool (docs/lti.md) keeps its platforms and queue in the
	// same database; its score queue stops before the store closes.
	if ls, ok := st.(classroom.LTIStore); ok {
		tool := lti.New(lti.Config{Store: ls, Logger: cfg.Logger, Lessons: cfg.Lessons})
		cfg.LTI = tool
		qctx, stopQueue := context.WithCancel(ctx)
		queueDone := make(chan struct{})
		go func() { defer close(queueDone); tool.Run(qctx) }()
		defer func() { stopQueue(); <-queueDone; tool.Close() }()
	}
	srv, err := web.NewServer(cfg)
	if err != nil {
		ln.Close()
		return &usageError{err}
	}
	var cidrs []string
	for _, p := range strings.Split(proxies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cidrs = append(cidrs, p)
		}
	}
	if err := srv.TrustProxies(cidrs); err != nil {
		ln.Close()
		return &usageError{err}
	}
	where := "PostgreSQL (DATABASE_URL)"
	if databaseURL == "" {
		where = filepath.Join(*dataDir, "classroom.db")
	}
	cfg.Logger.Info("classroom store open", slog.String("store", where))
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// Long enough for a run or a check that waits its longest for a
		// slot and then runs its longest; websockets are hijacked and
		// their deadlines cleared, so this does not cut them.
		WriteTimeout:   srv.RequestTimeout() + 15*time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: web.MaxHeaderBytes, // the longest share link
		ErrorLog:       slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}
	var fresh freshConns
	hs.ConnState = fresh.track
	hs.RegisterOnShutdown(fresh.closeAll)
	fmt.Fprintf(stdout, "serving the playground on http://%s\n", displayAddr(ln.Addr()))
	errc := make(chan error, 2)
	go func() { errc <- hs.Serve(ln) }()
	var ms *http.Server
	if mln != nil {
		ms = &http.Server{Handler: srv.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout: 30 * time.Second, ErrorLog: hs.ErrorLog}
		fmt.Fprintf(stdout, "serving /metrics on http://%s/metrics\n", displayAddr(mln.Addr()))
		go func() {
			if err := ms.Serve(mln); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("--metrics-addr: %w", err)
			}
		}()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	cfg.Logger.Info("shutting down: ending live runs and the requests waiting for them")
	began := time.Now()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// Websockets are hijacked, so http.Server.Shutdown does not wait for
	// them; requests waiting for a slot or running the engine, and
	// dashboard event streams, are not, so it would wait for them until
	// the grace ran out: end the runs, waits and sessions alongside it
	// (each request is answered, 503 or its result).
	runsDone := make(chan error, 1)
	go func() { runsDone <- srv.Shutdown(sctx) }()
	if ms != nil {
		go ms.Shutdown(sctx)
	}
	errHTTP := hs.Shutdown(sctx)
	if errHTTP != nil {
		// Past the grace: cut what is left rather than outlive it.
		hs.Close()
	}
	errRuns := <-runsDone
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	cfg.Logger.Info("stopped serving", slog.Duration("took", time.Since(began)))
	// Every answered request is committed by now; closing the store
	// checkpoints SQLite's log (or releases PostgreSQL's connections).
	errStore := closeStore()
	return errors.Join(errHTTP, errRuns, errStore)
}

// healthcheck asks a running server for /healthz.
func healthcheck(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr: %v", err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: /healthz answered %s", res.Status)
	}
	return nil
}

// displayAddr turns ":8080" into "localhost:8080" for a clickable link.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// envFlags defines flags whose defaults come from environment variables.
// A variable that does not parse is reported, with its name, after parsing.
// given reports whether the flag name was on the command line.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

type envFlags struct {
	fs     *flag.FlagSet
	getenv func(string) string
	errs   []error
}

func envDefault[T any](e *envFlags, name, envName string, def T, parse func(string) (T, error)) T {
	v := e.getenv(envName)
	if v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s (for --%s): %q is not valid: %v", envName, name, v, err))
		return def
	}
	return x
}

func (e *envFlags) intVar(p *int, name, envName string, def int, usage string) {
	e.fs.IntVar(p, name, envDefault(e, name, envName, def, strconv.Atoi), usage+" (env "+envName+")")
}

func (e *envFlags) int64Var(p *int64, name, envName string, def int64, usage string) {
	parse := func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }
	e.fs.Int64Var(p, name, envDefault(e, name, envName, def, parse), usage+" (env "+envName+")")
}

func (e *envFlags) durationVar(p *time.Duration, name, envName string, def time.Duration, usage string) {
	durationVar(e.fs, p, name, envDefault(e, name, envName, def, time.ParseDuration), usage+" (env "+envName+")")
}

func (e *envFlags) sizeVar(p *int64, name, envName string, def int64, usage string) {
	*p = envDefault(e, name, envName, def, parseSize)
	e.fs.Var((*byteSize)(p), name, usage+" (env "+envName+")")
}

// byteSize is a flag of bytes, written plainly or with a binary unit:
// 1048576, 1024KiB, 1MiB, 1GiB.
type byteSize int64

func (b *byteSize) String() string { return formatSize(int64(*b)) }

func (b *byteSize) Set(s string) error {
	v, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size: use bytes, or a number with KiB, MiB or GiB", s)
	}
	return v * mult, nil
}

func formatSize(v int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if v >= u.mult && v%u.mult == 0 {
			return strconv.FormatInt(v/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(v, 10)
}

func (e *envFlags) floatVar(p *float64, name, envName string, def float64, usage string) {
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	e.fs.Float64Var(p, name, envDefault(e, name, envName, def, parse), usage+" (env "+envName+")")
}
