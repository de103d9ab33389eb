package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// loadtestCmd plays a class against a playground server on this machine
// and reports what it measured. By default it starts the server itself
// (this binary's serve, on a loopback port, with a fresh data folder; any
// arguments after "--" go to serve) so that it can read the server's peak
// memory; --url plays against a server already running on loopback.
func loadtestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	students := fs.Int("students", 200, "students in the class")
	arrival := duration(fs, "arrival", 10*time.Second, "time over which the students arrive, evenly spread")
	presets := fs.String("presets", "paused-holder,ride-claim", "presets each student runs over the websocket, comma-separated")
	speed := fs.Float64("speed", 5, "simulated seconds per wall second of the live runs (the playground's default is 5; 0 is as fast as possible)")
	retries := fs.Int("retries", 3, "times a student tries a join or a check again after a 429 or 503, waiting its Retry-After")
	target := fs.String("url", "", "play against the server at this `URL` (loopback only) instead of starting one")
	timeout := duration(fs, "timeout", 15*time.Minute, "give up after this long")
	format := fs.String("format", "text", "output format: text or json")
	serverLog := fs.String("server-log", "", "write the started server's log to `file`")
	hostileMode := fs.String("hostile", "", "play an attack beside the class, from other loopback addresses: `mode` is one of "+hostileNames()+" (docs/load.md)")
	probeURL := fs.String("probe", "", "(used by loadtest itself) probe `URL`/healthz every 100 ms until stdin closes, one JSON line per answer")
	var serveArgs []string
	for i, a := range args {
		if a == "--" {
			args, serveArgs = args[:i], args[i+1:]
			break
		}
	}
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	if *probeURL != "" {
		return probeUntilEOF(ctx, *probeURL, os.Stdin, stdout)
	}
	switch {
	case *students < 1 || *students > 5000:
		return usagef("--students: must be between 1 and 5000, not %d", *students)
	case *arrival < 0 || *arrival > time.Hour:
		return usagef("--arrival: must be between 0s and 1h, not %s", *arrival)
	case *speed < 0 || *speed > 1000:
		return usagef("--speed: must be between 0 and 1000, not %g", *speed)
	case *retries < 0 || *retries > 100:
		return usagef("--retries: must be between 0 and 100, not %d", *retries)
	case *format != "text" && *format != "json":
		return usagef("--format: must be text or json, not %q", *format)
	case *hostileMode != "" && hostileModes[*hostileMode] == nil:
		return usagef("--hostile: must be one of %s, not %q", hostileNames(), *hostileMode)
	case *target != "" && len(serveArgs) > 0:
		return usagef("serve flags after -- apply to a server loadtest starts, not to --url")
	}
	plan := classPlan{Students: *students, Arrival: *arrival, Speed: *speed, Retries: *retries, Exercises: defaultAnswers,
		Prober: probeProcess}
	for _, p := range strings.Split(*presets, ",") {
		if p = strings.TrimSpace(p); p != "" {
			plan.Presets = append(plan.Presets, p)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	base := *target
	var srv *childServer
	if base == "" {
		var err error
		if srv, err = startChildServer(ctx, serveArgs, *serverLog); err != nil {
			return err
		}
		defer srv.stop()
		base = srv.base
	} else if err := loopbackOnly(base); err != nil {
		return err
	}
	settle(ctx, base)
	before, _ := goroutines(ctx, base)
	loadBefore := loadAverage()
	var cpuBefore time.Duration
	if srv != nil {
		cpuBefore = srv.cpuTime()
	}
	selfBefore := selfCPU()
	var attacker *hostile
	stopAttack := func() {}
	if *hostileMode != "" {
		attacker, stopAttack = startHostile(ctx, *hostileMode, base)
		defer stopAttack()
		// The attack has a second's head start, as it would.
		sleepCtx(ctx, time.Second)
	}
	rep, err := playClass(ctx, base, plan)
	stopAttack() // before the server is asked whether it drained
	if err != nil && rep == nil {
		return err
	}
	if attacker != nil {
		rep.Hostile = &hostileReport{Mode: attacker.mode, Got: attacker.summary()}
	}
	studentsCPU := selfCPU() - selfBefore
	out := loadOutput{Report: rep, CPUs: runtime.NumCPU(), GoroutinesBefore: before, Command: loadCommand(args, serveArgs),
		LoadAverage: [2]float64{loadBefore, loadAverage()}}
	if srv != nil {
		out.ServerCPU = srv.cpuTime() - cpuBefore
	}
	out.StudentsCPU = studentsCPU
	out.Drained = waitDrained(ctx, base)
	settle(ctx, base)
	out.GoroutinesAfter, _ = goroutines(ctx, base)
	if srv != nil {
		out.PeakRSS = srv.peakRSS()
	}
	if *format == "json" {
		return writeJSON(stdout, out)
	}
	out.print(stdout)
	if err != nil {
		return fmt.Errorf("the class did not finish: %w", err)
	}
	return nil
}

// loadOutput is the load test's report.
type loadOutput struct {
	Command          string       `json:"command"`
	CPUs             int          `json:"cpus"`
	Report           *classReport `json:"report"`
	PeakRSS          int64        `json:"peak_rss_bytes,omitempty"` // the started server's, from /proc
	GoroutinesBefore int          `json:"goroutines_before"`
	GoroutinesAfter  int          `json:"goroutines_after"`
	Drained          bool         `json:"drained"` // no run live or waiting, no websocket open, after the class
	// ServerCPU is the CPU time the started server used during the class;
	// LoadAverage the machine's one-minute load before and after, which
	// says how much of the machine other work took.
	ServerCPU   time.Duration `json:"server_cpu_ns,omitempty"`
	StudentsCPU time.Duration `json:"students_cpu_ns"` // this process's, playing the students
	LoadAverage [2]float64    `json:"load_average"`
}

func (o loadOutput) print(w io.Writer) {
	r := o.Report
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 0, 64) + " ms"
	}
	share := func(t tally) string {
		if t.Tries == 0 {
			return "none"
		}
		n := t.OK + t.Failed
		return fmt.Sprintf("%d/%d ok (%.1f%%), %d on the first try", t.OK, n, 100*float64(t.OK)/float64(max(n, 1)), t.FirstTry)
	}
	refused := func(t tally) string {
		if len(t.Refused) == 0 {
			return ""
		}
		var parts []string
		for _, s := range []int{429, 503} {
			if n := t.Refused[s]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d x %d", n, s))
			}
		}
		for s, n := range t.Refused {
			if s != 429 && s != 503 {
				parts = append(parts, fmt.Sprintf("%d x %d", n, s))
			}
		}
		return "; refused " + strings.Join(parts, ", ")
	}
	fmt.Fprintf(w, "%s\n", o.Command)
	fmt.Fprintf(w, "a class of %d arriving over %s, on %d CPUs (load average %.1f before, %.1f after); took %s\n",
		r.Students, r.Arrival, o.CPUs, o.LoadAverage[0], o.LoadAverage[1], r.Took.Round(100*time.Millisecond))
	fmt.Fprintf(w, "joins    %s%s; answered p50 %s, p99 %s\n", share(r.Joins), refused(r.Joins), ms(r.Joins.P50), ms(r.Joins.P99))
	fmt.Fprintf(w, "runs     %s; %d waited in line (deepest place %d); wait for a slot p50 %s, p99 %s, max %s\n",
		share(r.Runs), r.Queued, r.DeepestLine, ms(r.Runs.P50), ms(r.Runs.P99), ms(r.Runs.Max))
	fmt.Fprintf(w, "         at most %d runs live and %d waiting at once (every run, checks' included)\n", r.PeakLive, r.PeakWaiting)
	fmt.Fprintf(w, "checks   %s%s; answered p50 %s, p99 %s, max %s\n", share(r.Checks), refused(r.Checks), ms(r.Checks.P50), ms(r.Checks.P99), ms(r.Checks.Max))
	fmt.Fprintf(w, "healthz  %d probes, %d ok; p50 %s, p99 %s, max %s\n", r.Healthz.Tries, r.Healthz.OK, ms(r.Healthz.P50), ms(r.Healthz.P99), ms(r.Healthz.Max))
	if o.PeakRSS > 0 {
		fmt.Fprintf(w, "server   peak RSS %d MiB; CPU %.1f s (%.2f cores); ", o.PeakRSS>>20, o.ServerCPU.Seconds(), o.ServerCPU.Seconds()/max(r.Took.Seconds(), 0.001))
	} else {
		fmt.Fprintf(w, "server   ")
	}
	fmt.Fprintf(w, "goroutines %d before, %d after (drained: %v); the students took %.1f s of CPU\n",
		o.GoroutinesBefore, o.GoroutinesAfter, o.Drained, o.StudentsCPU.Seconds())
	if h := r.Hostile; h != nil {
		fmt.Fprintf(w, "attack   %s, beside the class: %s\n", h.Mode, h.Got)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  failure: %s\n", e)
	}
}

func loadCommand(args, serveArgs []string) string {
	s := "playground loadtest"
	if len(args) > 0 {
		s += " " + strings.Join(args, " ")
	}
	if len(serveArgs) > 0 {
		s += " -- " + strings.Join(serveArgs, " ")
	}
	return s
}

// probeProcess runs the /healthz prober as a process of its own (this
// binary's loadtest --probe), as a load balancer probes from outside the
// students' browsers: a probe then waits for the server, not for the load
// test's own goroutines.
func probeProcess(ctx context.Context, base string, record func(probe)) (stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "loadtest", "--probe", base)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var pr probe
			if json.Unmarshal(sc.Bytes(), &pr) == nil {
				record(pr)
			}
		}
	}()
	return func() {
		in.Close()
		<-read
		cmd.Wait()
	}, nil
}

// probeUntilEOF is loadtest --probe: it probes base until in closes,
// writing each answer as a JSON line.
func probeUntilEOF(ctx context.Context, base string, in io.Reader, out io.Writer) error {
	if err := loopbackOnly(base); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		io.Copy(io.Discard, in)
		cancel()
	}()
	enc := json.NewEncoder(out)
	var mu sync.Mutex
	probeHealth(ctx, base, func(pr probe) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(pr)
	})
	return nil
}

// loopbackOnly refuses a target that is not this machine: a load test is
// for one's own server.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return usagef("--url: %q is not an http URL", raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usagef("--url: %q is not on this machine; the load test plays only against loopback (127.0.0.1, localhost)", raw)
}

// childServer is a playground server the load test started.
type childServer struct {
	cmd  *exec.Cmd
	base string
	dir  string
	log  *os.File
}

func startChildServer(ctx context.Context, serveArgs []string, logPath string) (*childServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "playground-loadtest-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, serveArgs...)
	cmd := exec.Command(exe, args...)
	s := &childServer{cmd: cmd, dir: dir}
	if logPath != "" {
		if s.log, err = os.Create(logPath); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		cmd.Stderr = s.log
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, r)
	}()
	select {
	case line := <-lines:
		s.base = regexp.MustCompile(`http://\S+`).FindString(line)
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	if s.base == "" {
		s.stop()
		return nil, errors.New("the server did not start (see --server-log)")
	}
	s.base = strings.Replace(s.base, "localhost", "127.0.0.1", 1)
	return s, nil
}

// peakRSS is the server's high-water resident memory (Linux VmHWM).
func (s *childServer) peakRSS() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// cpuTime is the CPU the server has used (user and system), from /proc.
func (s *childServer) cpuTime() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command's name, in parentheses, may hold spaces: count fields
	// after it. utime and stime are fields 14 and 15, in clock ticks
	// (100 a second on Linux).
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// selfCPU is the CPU this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the machine's one-minute load average, or 0.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// stop ends the server as an operator would (SIGTERM) and cleans up.
func (s *childServer) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
	if s.log != nil {
		s.log.Close()
	}
	os.RemoveAll(s.dir)
}

// goroutines reads go_goroutines from the server's /metrics (on the main
// address).
func goroutines(ctx context.Context, base string) (int, error) {
	v, err := metricValue(ctx, base, "go_goroutines")
	return int(v), err
}

func metricValue(ctx context.Context, base, name string) (float64, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)`).FindSubmatch(b)
	if m == nil {
		return 0, fmt.Errorf("no %s in /metrics", name)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// settle waits (up to 10 s) until the server's warm Raft groups stop
// changing in number, so that goroutines are counted on a server at rest:
// the pool boots its groups after start and replaces the ones runs took.
func settle(ctx context.Context, base string) {
	last, since := -1.0, time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; {
		v, err := metricValue(ctx, base, "playground_raft_pool_idle")
		if err != nil {
			return
		}
		if v != last {
			last, since = v, time.Now()
		} else if time.Since(since) > time.Second {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDrained waits (up to 30 s) until the server has no run live or
// waiting and no websocket open.
func waitDrained(ctx context.Context, base string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		res, err := http.Get(base + "/healthz")
		if err == nil {
			var h struct {
				Live   int `json:"live_runs"`
				Queued int `json:"queued_runs"`
				Conns  int `json:"connections"`
			}
			json.NewDecoder(res.Body).Decode(&h)
			res.Body.Close()
			if h.Live == 0 && h.Queued == 0 && h.Conns == 0 {
				// The last sessions' goroutines end just after.
				time.Sleep(500 * time.Millisecond)
				return true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
