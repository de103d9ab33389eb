package web_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// BenchmarkLiveSessions's browsers run in a process of their own, this
// test binary started again with clientsEnv set, so that what the
// benchmark reports is the server's: its memory, its processor time, and
// how late it sends, not the Go scheduler of a process that also decodes
// a thousand browsers' messages. They share the machine's cores with the
// server, as browsers on the same host would.
//
// The parent sends a clientJob as one JSON line on the child's standard
// input; the child dials every session, prints clientsReady, waits for a
// "go" line, runs the sessions and prints clientsReport followed by its
// clientReport as JSON.
const (
	clientsEnv    = "PLAYGROUND_BENCH_CLIENTS"
	clientsReady  = "benchclients: ready"
	clientsReport = "benchclients: report "
)

// clientJob is what the browsers are to do.
type clientJob struct {
	URL      string          `json:"url"`
	Cookies  []string        `json:"cookies"` // one session each
	Scenario json.RawMessage `json:"scenario"`
	Spread   time.Duration   `json:"spread"`
	Runs     int             `json:"runs"` // one after the other, each session
}

// clientReport is what they saw, and what they cost.
type clientReport struct {
	Sessions []sessionStats `json:"sessions"`
	CPU      time.Duration  `json:"cpu"`      // user + system, from "go" to the last summary
	PeakRSS  int64          `json:"peak_rss"` // the client process's high-water mark
}

// TestBenchSessionClients is the browsers' process of BenchmarkLiveSessions;
// run on its own it skips.
func TestBenchSessionClients(t *testing.T) {
	if os.Getenv(clientsEnv) != "1" {
		t.Skip("the browsers of BenchmarkLiveSessions, started by it in a process of their own")
	}
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the job: %v", err)
	}
	var job clientJob
	if err := json.Unmarshal(line, &job); err != nil {
		t.Fatalf("the job: %v", err)
	}
	conns := make([]*websocket.Conn, len(job.Cookies))
	for i, cookie := range job.Cookies {
		c, _, err := websocket.DefaultDialer.Dial(job.URL, http.Header{"Cookie": {cookie}})
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns[i] = c
	}
	fmt.Println(clientsReady)
	if line, err := in.ReadString('\n'); err != nil || strings.TrimSpace(line) != "go" {
		t.Fatalf("waiting for go: %q, %v", line, err)
	}
	cpu0 := cpuTime()
	rep := clientReport{Sessions: make([]sessionStats, len(conns))}
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			time.Sleep(job.Spread * time.Duration(i) / time.Duration(len(conns)))
			rep.Sessions[i] = runSession(c, job.Scenario, job.Runs)
		})
	}
	wg.Wait()
	rep.CPU = cpuTime() - cpu0
	for _, c := range conns {
		c.Close()
	}
	rep.PeakRSS = peakRSS()
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(clientsReport + string(out))
}

// sessionClients is a running browsers' process.
type sessionClients struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startClients starts the browsers' process and returns once every session
// is connected.
func startClients(tb testing.TB, job clientJob) *sessionClients {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBenchSessionClients$", "-test.count", "1")
	cmd.Env = append(os.Environ(), clientsEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting the browsers' process: %v", err)
	}
	sc := &sessionClients{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	sc.out.Buffer(nil, 256<<20)
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := json.Marshal(job)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := stdin.Write(append(line, '\n')); err != nil {
		tb.Fatalf("sending the job: %v", err)
	}
	if _, err := sc.next(clientsReady); err != nil {
		tb.Fatalf("the browsers' process: %v", err)
	}
	return sc
}

// next reads the process's output up to the line that starts with prefix
// and returns the rest of that line; the test framework's own lines pass.
func (sc *sessionClients) next(prefix string) (string, error) {
	var seen []string
	for sc.out.Scan() {
		if rest, ok := strings.CutPrefix(sc.out.Text(), prefix); ok {
			return rest, nil
		}
		seen = append(seen, sc.out.Text())
	}
	return "", fmt.Errorf("ended before %q (%v); it printed: %s", prefix, sc.out.Err(), strings.Join(seen, " | "))
}

// run lets every session start and returns the report once all have
// ended.
func (sc *sessionClients) run() (clientReport, error) {
	var rep clientReport
	if _, err := io.WriteString(sc.stdin, "go\n"); err != nil {
		return rep, err
	}
	line, err := sc.next(clientsReport)
	if err != nil {
		return rep, err
	}
	if err := json.Unmarshal([]byte(line), &rep); err != nil {
		return rep, fmt.Errorf("the report: %w", err)
	}
	sc.stdin.Close()
	if err := sc.cmd.Wait(); err != nil {
		return rep, fmt.Errorf("the browsers' process: %w", err)
	}
	return rep, nil
}

var errNoEvents = errors.New("no events")
