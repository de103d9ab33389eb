package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// classPlan is what a load test's class does: each student arrives (evenly
// spread over Arrival), joins the class, runs each preset over the
// websocket at Speed, and answers each exercise, one after the other, as a
// person at a browser would.
type classPlan struct {
	Students  int
	Arrival   time.Duration
	Presets   []string
	Speed     float64
	Exercises []plannedAnswer
	// Retries is how many times a student tries again, after the server's
	// Retry-After, when a join or a check is refused with 429 or 503.
	Retries int
	// Prober, if set, starts the /healthz prober in a process of its own
	// (see probeProcess), so that the students' own work in this process
	// does not delay its probes; nil probes from a goroutine here.
	Prober func(ctx context.Context, base string, record func(probe)) (stop func(), err error)
}

// plannedAnswer is one exercise and the answer every student gives.
type plannedAnswer struct {
	ID     string `json:"id"`
	Answer string `json:"answer"`
}

// defaultAnswers: a number (no engine run), a prediction (one run, which
// the checker shares between students of a variant) and a scenario answer
// (four runs, every time).
var defaultAnswers = []plannedAnswer{
	{"outlive-lease", "50"},
	{"stale-token-write", "refused"},
	{"long-job-config", `{"lock.lease":"30s","clients[client-1].renew_every":"10s"}`},
}

// classReport is what a load test measured.
type classReport struct {
	Students    int           `json:"students"`
	Arrival     time.Duration `json:"arrival_ns"`
	Joins       tally         `json:"joins"`
	Runs        tally         `json:"runs"`
	Checks      tally         `json:"checks"`
	Healthz     tally         `json:"healthz"`
	Queued      int           `json:"runs_queued"`  // runs told a place in line
	DeepestLine int           `json:"deepest_line"` // the largest place any run was told
	PeakLive    int           `json:"peak_live"`    // the most runs live at once, as /healthz said
	PeakWaiting int           `json:"peak_waiting"` // the most runs waiting at once, as /healthz said
	Took        time.Duration `json:"took_ns"`
	Errors      []string      `json:"errors,omitempty"` // the first few failures, for the reader
	// Hostile is the attack played beside the class (--hostile), if any.
	Hostile *hostileReport `json:"hostile,omitempty"`
}

// hostileReport is what the server answered the attacker, by outcome.
type hostileReport struct {
	Mode string `json:"mode"`
	Got  string `json:"got"`
}

// tally counts one kind of request and the times it took.
type tally struct {
	Tries     int           `json:"tries"`     // requests sent, retries included
	OK        int           `json:"ok"`        // that succeeded in the end
	Failed    int           `json:"failed"`    // that never did
	FirstTry  int           `json:"first_try"` // that succeeded the first time
	Refused   map[int]int   `json:"refused,omitempty"`
	P50       time.Duration `json:"p50_ns"`
	P99       time.Duration `json:"p99_ns"`
	Max       time.Duration `json:"max_ns"`
	latencies []time.Duration
}

func (t *tally) add(d time.Duration) { t.latencies = append(t.latencies, d) }

func (t *tally) refused(status int) {
	if t.Refused == nil {
		t.Refused = map[int]int{}
	}
	t.Refused[status]++
}

// finish computes the percentiles.
func (t *tally) finish() {
	if len(t.latencies) == 0 {
		return
	}
	slices.Sort(t.latencies)
	at := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(t.latencies)))) - 1
		return t.latencies[max(0, min(i, len(t.latencies)-1))]
	}
	t.P50, t.P99, t.Max = at(0.50), at(0.99), t.latencies[len(t.latencies)-1]
}

// player plays one class against a server.
type player struct {
	base      string
	plan      classPlan
	transport *http.Transport
	scenarios map[string]json.RawMessage

	mu     sync.Mutex
	report classReport
}

// playClass creates a class on the server at base, plays plan against it
// and returns what it measured: for joins and checks the time to answer,
// for runs the time a run waited for its slot (from "start" to its first
// state message), and /healthz probed every 100 ms throughout.
func playClass(ctx context.Context, base string, plan classPlan) (*classReport, error) {
	p := &player{base: strings.TrimRight(base, "/"), plan: plan, scenarios: map[string]json.RawMessage{},
		transport: &http.Transport{MaxIdleConnsPerHost: plan.Students + 16, IdleConnTimeout: time.Minute}}
	defer p.transport.CloseIdleConnections()
	for _, name := range plan.Presets {
		pr, err := engine.LoadPreset(name)
		if err != nil {
			return nil, usagef("--presets: %v", err)
		}
		p.scenarios[name], _ = json.Marshal(pr.Scenario)
	}
	p.report.Students, p.report.Arrival = plan.Students, plan.Arrival
	code, err := p.createClass(ctx)
	if err != nil {
		return nil, err
	}

	began := time.Now()
	probeCtx, stopProbe := context.WithCancel(ctx)
	probed := make(chan struct{})
	if plan.Prober != nil {
		stop, err := plan.Prober(probeCtx, p.base, p.record)
		if err != nil {
			stopProbe()
			return nil, fmt.Errorf("starting the /healthz prober: %w", err)
		}
		go func() { defer close(probed); <-probeCtx.Done(); stop() }()
	} else {
		go func() { defer close(probed); probeHealth(probeCtx, p.base, p.record) }()
	}
	var wg sync.WaitGroup
	for i := range plan.Students {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := time.Duration(0)
			if plan.Students > 1 {
				at = plan.Arrival * time.Duration(i) / time.Duration(plan.Students-1)
			}
			select {
			case <-time.After(at):
			case <-ctx.Done():
				return
			}
			p.student(ctx, i, code)
		}()
	}
	wg.Wait()
	stopProbe()
	<-probed
	p.report.Took = time.Since(began)
	for _, t := range []*tally{&p.report.Joins, &p.report.Runs, &p.report.Checks, &p.report.Healthz} {
		t.finish()
	}
	return &p.report, ctx.Err()
}

func (p *player) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Transport: p.transport, Jar: jar, Timeout: 3 * time.Minute}
}

// post sends a JSON body as the page would (same origin).
func (p *player) post(ctx context.Context, c *http.Client, path string, body any) (status int, retry time.Duration, out []byte, err error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+path, bytes.NewReader(b))
	if err != nil {
		return 0, 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", p.base)
	res, err := c.Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer res.Body.Close()
	out, err = io.ReadAll(res.Body)
	if s, e := strconv.Atoi(res.Header.Get("Retry-After")); e == nil {
		retry = time.Duration(s) * time.Second
	}
	return res.StatusCode, retry, out, err
}

func (p *player) createClass(ctx context.Context) (string, error) {
	status, _, body, err := p.post(ctx, p.client(), "/api/classes", map[string]string{"name": "Load test"})
	if err != nil {
		return "", fmt.Errorf("creating the class: %w", err)
	}
	var class struct {
		Code string `json:"code"`
	}
	if status != http.StatusCreated || json.Unmarshal(body, &class) != nil || class.Code == "" {
		return "", fmt.Errorf("creating the class: %d %s", status, body)
	}
	return class.Code, nil
}

// attempt sends a request until it succeeds, is refused for good, or the
// student runs out of patience (plan.Retries), waiting Retry-After between
// tries as a person reading "try again in N s" would. Each answer's time
// is counted; a request that succeeds late counts its last try.
func (p *player) attempt(ctx context.Context, t *tally, what string, send func() (int, time.Duration, []byte, error), ok int) bool {
	for try := 0; ; try++ {
		began := time.Now()
		status, retry, body, err := send()
		took := time.Since(began)
		p.mu.Lock()
		t.Tries++
		t.add(took)
		switch {
		case err == nil && status == ok:
			t.OK++
			if try == 0 {
				t.FirstTry++
			}
			p.mu.Unlock()
			return true
		case err == nil && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) && try < p.plan.Retries:
			t.refused(status)
			p.mu.Unlock()
			select {
			case <-time.After(max(retry, time.Second)):
				continue
			case <-ctx.Done():
			}
			p.mu.Lock()
		}
		t.Failed++
		if err == nil {
			t.refused(status)
			p.note("%s: %d %s", what, status, excerptBody(body))
		} else {
			p.note("%s: %v", what, err)
		}
		p.mu.Unlock()
		return false
	}
}

// note keeps the first few failures (p.mu held).
func (p *player) note(format string, args ...any) {
	if len(p.report.Errors) < 10 {
		p.report.Errors = append(p.report.Errors, fmt.Sprintf(format, args...))
	}
}

func excerptBody(b []byte) string {
	s := strings.TrimSpace(string(b))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// student is one learner: join, run each preset, answer each exercise.
func (p *player) student(ctx context.Context, i int, code string) {
	c := p.client()
	name := fmt.Sprintf("Student %03d", i+1)
	joined := p.attempt(ctx, &p.report.Joins, "join", func() (int, time.Duration, []byte, error) {
		return p.post(ctx, c, "/api/classes/"+code+"/join", map[string]string{"name": name})
	}, http.StatusCreated)
	if !joined {
		return
	}
	p.runPresets(ctx, c)
	for _, ex := range p.plan.Exercises {
		p.attempt(ctx, &p.report.Checks, "check "+ex.ID, func() (int, time.Duration, []byte, error) {
			return p.post(ctx, c, "/api/exercises/"+ex.ID+"/check", map[string]string{"answer": ex.Answer})
		}, http.StatusOK)
	}
}

// runPresets runs each preset on one websocket, as the playground page
// does, and reads every message to the summary.
func (p *player) runPresets(ctx context.Context, c *http.Client) {
	u, _ := url.Parse(p.base)
	header := http.Header{"Origin": {p.base}}
	for _, ck := range c.Jar.Cookies(u) {
		header.Add("Cookie", ck.String())
	}
	dialer := websocket.Dialer{HandshakeTimeout: time.Minute}
	conn, res, err := dialer.DialContext(ctx, "ws"+strings.TrimPrefix(p.base, "http")+"/ws/run", header)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		p.mu.Lock()
		p.report.Runs.Tries += len(p.plan.Presets)
		p.report.Runs.Failed += len(p.plan.Presets)
		p.note("websocket: %v (%d)", err, status)
		p.mu.Unlock()
		return
	}
	defer conn.Close()
	for _, name := range p.plan.Presets {
		if err := p.runOne(conn, name); err != nil {
			p.mu.Lock()
			p.report.Runs.Failed++
			p.note("run %s: %v", name, err)
			p.mu.Unlock()
			if errors.Is(err, errConnection) {
				return
			}
		}
	}
}

var errConnection = errors.New("the connection failed")

func (p *player) runOne(conn *websocket.Conn, name string) error {
	p.mu.Lock()
	p.report.Runs.Tries++
	p.mu.Unlock()
	began := time.Now()
	if err := conn.WriteJSON(map[string]any{"type": "start", "scenario": p.scenarios[name], "speed": p.plan.Speed}); err != nil {
		return fmt.Errorf("%w: %v", errConnection, err)
	}
	started, queued, deepest := false, false, 0
	for {
		// A run at speed 5 lasts well under a minute; its wait in line
		// has no bound but the test's.
		conn.SetReadDeadline(time.Now().Add(10 * time.Minute))
		// Only what the test needs is decoded, so that the students cost
		// the machine less than the server they measure.
		var m struct {
			Type     string `json:"type"`
			Position int    `json:"position"`
			Code     string `json:"code"`
			Message  string `json:"message"`
			Stopped  bool   `json:"stopped"`
		}
		if err := conn.ReadJSON(&m); err != nil {
			return fmt.Errorf("%w: %v", errConnection, err)
		}
		switch m.Type {
		case web.MsgQueued:
			queued, deepest = true, max(deepest, m.Position)
		case web.MsgState, web.MsgEvent:
			if !started {
				started = true
				p.mu.Lock()
				p.report.Runs.add(time.Since(began))
				if queued {
					p.report.Queued++
				}
				p.report.DeepestLine = max(p.report.DeepestLine, deepest)
				p.mu.Unlock()
			}
		case web.MsgError:
			if m.Code == "too_long" {
				continue // the summary follows
			}
			return fmt.Errorf("error %s: %s", m.Code, m.Message)
		case web.MsgSummary:
			if m.Stopped {
				return errors.New("the run was stopped")
			}
			p.mu.Lock()
			p.report.Runs.OK++
			p.report.Runs.FirstTry++
			p.mu.Unlock()
			return nil
		}
	}
}

// probe is one answer of /healthz: how long it took, whether it said ok,
// and the runs it counted.
type probe struct {
	Took   time.Duration `json:"took_ns"`
	OK     bool          `json:"ok"`
	Live   int           `json:"live"`
	Queued int           `json:"queued"`
}

func (p *player) record(pr probe) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.report.Healthz.Tries++
	p.report.Healthz.add(pr.Took)
	if pr.OK {
		p.report.Healthz.OK++
		p.report.Healthz.FirstTry++
	} else {
		p.report.Healthz.Failed++
	}
	p.report.PeakLive = max(p.report.PeakLive, pr.Live)
	p.report.PeakWaiting = max(p.report.PeakWaiting, pr.Queued)
}

// probeHealth asks base's /healthz every 100 ms, as a load balancer would,
// and records each answer, until ctx ends.
func probeHealth(ctx context.Context, base string, record func(probe)) {
	c := &http.Client{Timeout: 10 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		began := time.Now()
		res, err := c.Get(base + "/healthz")
		pr := probe{Took: time.Since(began)}
		if err == nil {
			var h struct {
				Live   int `json:"live_runs"`
				Queued int `json:"queued_runs"`
			}
			json.NewDecoder(res.Body).Decode(&h)
			res.Body.Close()
			pr.OK, pr.Live, pr.Queued = res.StatusCode == http.StatusOK, h.Live, h.Queued
		}
		record(pr)
	}
}
