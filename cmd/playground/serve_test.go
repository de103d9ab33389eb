package main

import (
	"bufio"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

func noEnv(string) string { return "" }

// TestServeAnswersAndShutsDown runs the whole program on port 0, polls
// /healthz, and cancels it the way SIGTERM does.
func TestServeAnswersAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	data := filepath.Join(t.TempDir(), "data")
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	go io.Copy(io.Discard, out)
	url := regexp.MustCompile(`http://\S+`).FindString(line)
	if url == "" {
		t.Fatalf("no URL in %q", line)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(url + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz never answered 200: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The longest share link the page may make reaches the handler,
	// which names s if it is bad; the server's own header limit does not
	// cut it off first with a bare 431.
	long, err := http.Get(url + "/playground?s=" + strings.Repeat("A", web.MaxHeaderBytes-16<<10))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(long.Body)
	long.Body.Close()
	if long.StatusCode == http.StatusRequestHeaderFieldsTooLarge || !strings.Contains(string(body), "s:") && long.StatusCode != http.StatusOK {
		t.Errorf("a share link as long as s may be: %d %.200s, want the page or an error naming s", long.StatusCode, body)
	}
	host := strings.TrimPrefix(url, "http://")
	if err := run(t.Context(), []string{"serve", "--healthcheck", "--addr", host}, noEnv, io.Discard, io.Discard); err != nil {
		t.Errorf("--healthcheck against a live server: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after cancel, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not return after cancel")
	}
	if err := run(t.Context(), []string{"serve", "--healthcheck", "--addr", host}, noEnv, io.Discard, io.Discard); err == nil {
		t.Error("--healthcheck succeeded with no server")
	}
	if _, err := os.Stat(filepath.Join(data, "classroom.db")); err != nil {
		t.Errorf("the classroom store was not created in --data: %v", err)
	}
}

func TestServeBadConfigNamesTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--max-live-runs", "-1"}, nil, "--max-live-runs: must be 0 (sized from the memory budget and the cores) or positive, not -1"},
		{[]string{"--max-connections", "-5"}, nil, "--max-connections: must be 0 (sized from --max-live-runs) or positive"},
		{[]string{"--max-live-runs", "20000"}, nil, "max-live-runs: must be between 1 and 10000"},
		{[]string{"--message-rate", "5000"}, nil, "message-rate: must be between 1 and 1000"},
		{nil, map[string]string{"PLAYGROUND_MAX_LIVE_RUNS": "many"}, `PLAYGROUND_MAX_LIVE_RUNS (for --max-live-runs): "many" is not valid`},
		{[]string{"--log-format", "xml"}, nil, "--log-format: must be text or json"},
		{[]string{"--max-run-time", "0s"}, nil, "--max-run-time: must be positive"},
		{[]string{"--run-slots", "0"}, nil, "--run-slots: must be positive"},
		{[]string{"--queue-wait", "10ms"}, nil, "queue-wait: must be between 100ms and 10m"},
		{[]string{"--chaos-timeout", "0s"}, nil, "--chaos-timeout: must be between 100ms and 1h, not 0s"},
		{[]string{"--chaos-timeout", "50ms"}, nil, "--chaos-timeout: must be between 100ms and 1h, not 50ms"},
		{[]string{"--chaos-timeout", "2h"}, nil, "--chaos-timeout: must be between 100ms and 1h, not 2h0m0s"},
		{[]string{"--chaos-timeout", "-1m"}, nil, "--chaos-timeout: must be between 100ms and 1h"},
		{nil, map[string]string{"PLAYGROUND_CHAOS_TIMEOUT": "0"}, "--chaos-timeout: must be between 100ms and 1h, not 0s"},
		{nil, map[string]string{"PLAYGROUND_CHAOS_TIMEOUT": "soon"}, `PLAYGROUND_CHAOS_TIMEOUT (for --chaos-timeout): "soon" is not valid`},
		{[]string{"--session-share", "0.9", "--address-share", "0.5"}, nil, "address-share: must be between session-share (0.9) and 1"},
		{[]string{"--memory-budget", "1MiB"}, nil, "memory-budget: must be at least 64 MiB"},
		{[]string{"--addr", "nope"}, nil, "--addr"},
		{nil, map[string]string{"DATABASE_URL": "mysql://db/x"}, "DATABASE_URL: must start with postgres://"},
		{[]string{"--trusted-proxies", "10.0.0.0/33"}, map[string]string{"PLAYGROUND_DATA": "@TMP"}, "trusted-proxies"},
	} {
		dir := t.TempDir()
		getenv := func(k string) string {
			if v := tc.env[k]; v == "@TMP" {
				return dir
			}
			return tc.env[k]
		}
		// Should a bad value be taken, serving stops at the timeout and
		// the nil error fails the test.
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		args := append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)
		err := run(ctx, args, getenv, io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %v, want it to contain %q", tc.args, tc.env, err, tc.want)
		}
		var ue *usageError
		if tc.want != "--addr" && !strings.HasPrefix(tc.want, "DATABASE_URL") && !errors.As(err, &ue) {
			t.Errorf("%v: %T is not a usage error (exit 2)", tc.args, err)
		}
	}
}

// TestDockerfileBuildCommand runs the Dockerfile's go build line, as
// written, and checks that it makes a static binary: Docker cannot run
// everywhere the tests do, but its build command can.
func TestDockerfileBuildCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "RUN ") && strings.Contains(l, "go build") {
			line = strings.TrimPrefix(l, "RUN ")
		}
	}
	if !strings.Contains(line, "CGO_ENABLED=0") || !strings.Contains(line, "-o /out/playground") {
		t.Fatalf("Dockerfile build line %q: want CGO_ENABLED=0 and -o /out/playground", line)
	}
	bin := filepath.Join(t.TempDir(), "playground")
	cmd := exec.Command("sh", "-c", strings.Replace(line, "/out/playground", bin, 1))
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader: it is not static")
		}
	}
	if out, err := exec.Command(bin, "presets").Output(); err != nil || !strings.Contains(string(out), "paused-holder") {
		t.Errorf("the built binary's presets command: %v %s", err, out)
	}
}

// TestServeShutdownEndsDashboardStreams: a teacher's open dashboard (a
// server-sent event stream, not a hijacked websocket) must not hold the
// shutdown until its grace runs out.
func TestServeShutdownEndsDashboardStreams(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	url, done := startServe(ctx, t)
	res, err := http.Post(url+"/api/classes", "application/json", strings.NewReader(`{"name":"Shutdown"}`))
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Code, TeacherKey string }
	var raw map[string]string
	json.NewDecoder(res.Body).Decode(&raw)
	res.Body.Close()
	c.Code, c.TeacherKey = raw["code"], raw["teacher_key"]
	req, _ := http.NewRequest("GET", url+"/api/classes/"+c.Code+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.TeacherKey)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("events: %v %v", err, stream)
	}
	defer stream.Body.Close()
	cancel()
	// A stream that held the shutdown past its grace would make
	// http.Server.Shutdown fail, and serve return that error: no clock is
	// needed to tell, so a slow machine cannot fail this.
	waitServe(t, done)
}

// TestServeShutdownEndsLearnerStreams: a learner's page following the
// class live (GET /api/me/events) does not hold the shutdown either.
func TestServeShutdownEndsLearnerStreams(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	url, done := startServe(ctx, t)
	res, err := http.Post(url+"/api/classes", "application/json", strings.NewReader(`{"name":"Shutdown"}`))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]string
	json.NewDecoder(res.Body).Decode(&raw)
	res.Body.Close()
	res, err = http.Post(url+"/api/classes/"+raw["code"]+"/join", "application/json", strings.NewReader(`{"name":"Ada"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("join: %s", res.Status)
	}
	req, _ := http.NewRequest("GET", url+"/api/me/events", nil)
	for _, ck := range res.Cookies() {
		req.AddCookie(ck)
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("learner events: %v %v", err, stream)
	}
	defer stream.Body.Close()
	// Its first line arrived: the stream is being served.
	if _, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitServe(t, done)
}

// TestServeShutdownClosesUnusedConnections: a connection that was opened
// and never sent a request (a browser's preconnect) does not hold the
// shutdown; http.Server alone would wait 5 s for it, past the grace.
func TestServeShutdownClosesUnusedConnections(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	url, done := startServe(ctx, t)
	silent, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The server accepts in order: once a later connection is answered,
	// the silent one has been accepted too.
	res, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cancel()
	waitServe(t, done)
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil {
		t.Error("the silent connection is still open after the shutdown")
	}
}

// startServe runs serve on a loopback port until ctx ends and returns its
// base URL and the channel serve's error arrives on.
func startServe(ctx context.Context, t *testing.T) (string, <-chan error) {
	t.Helper()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	go io.Copy(io.Discard, out)
	return regexp.MustCompile(`http://\S+`).FindString(line), done
}

// waitServe fails the test unless serve returns nil.
func waitServe(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not return")
	}
}
