package etcdbench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childEnv names the service a copy of this test binary hosts when it is
// started by BenchmarkLockServices (see startChild).
const childEnv = "ETCDBENCH_SERVICE"

// TestMain turns the test binary into a service process when childEnv is
// set, and runs the tests and benchmarks otherwise.
func TestMain(m *testing.M) {
	go removeDirsOnSignal()
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(serveChild(name, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// Interrupted (Ctrl-C reaches the benchmark and its service processes
// alike), the process removes etcd's data directories before it exits:
// they are on tmpfs, in memory, and nothing else would remove them.
var (
	tempDirsMu sync.Mutex
	tempDirs   = map[string]bool{}
)

func removeDirsOnSignal() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	tempDirsMu.Lock()
	for dir := range tempDirs {
		os.RemoveAll(dir)
	}
	os.Exit(1)
}

// tempDir makes a directory that is removed when the process is
// interrupted, and a function that removes it now.
func tempDir(base, pattern string) (string, func(), error) {
	dir, err := os.MkdirTemp(base, pattern)
	if err != nil {
		return "", nil, err
	}
	tempDirsMu.Lock()
	tempDirs[dir] = true
	tempDirsMu.Unlock()
	return dir, func() {
		tempDirsMu.Lock()
		delete(tempDirs, dir)
		tempDirsMu.Unlock()
		os.RemoveAll(dir)
	}, nil
}

// serveChild hosts one service and runs the phases asked for on in, one
// line each ("<op> <nanoseconds to run for>"), answering each with the
// operations done and the nanoseconds they took ("ok <ops> <ns>") or the
// error that stopped it ("error <text>"). It returns when in ends: the
// benchmark is over, or its process died.
func serveChild(name string, in io.Reader, out io.Writer) int {
	svc, err := openService(name)
	if err != nil {
		fmt.Fprintf(out, "error %v\n", oneLine(err))
		return 1
	}
	defer svc.close()
	fmt.Fprintln(out, "ready")
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		op, d, err := parsePhase(lines.Text())
		if err == nil {
			var ops int
			var took time.Duration
			ops, took, err = svc.phase(op, d)
			if err == nil {
				fmt.Fprintf(out, "ok %d %d\n", ops, took.Nanoseconds())
				continue
			}
		}
		fmt.Fprintf(out, "error %v\n", oneLine(err))
	}
	return 0
}

func parsePhase(line string) (op string, d time.Duration, err error) {
	op, ns, ok := strings.Cut(line, " ")
	if !ok {
		return "", 0, fmt.Errorf("a phase is %q, not %q", "<op> <nanoseconds>", line)
	}
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("a phase's length is a positive number of nanoseconds, not %q", ns)
	}
	return op, time.Duration(n), nil
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// child is a service in a process of its own: a copy of this test binary
// started with childEnv set. Each has its own heap and collector, as a
// deployed service has; only one of them works at a time.
type child struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	name string
}

// startChild starts the process for a service and waits until the service
// is up. The process ends when the benchmark does (its input closes).
func startChild(b *testing.B, name string) *child {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting the %s process: %v", name, err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out), name: name}
	b.Cleanup(c.stop)
	if line := c.answer(); line != "ready" {
		b.Fatalf("the %s process: %s", name, line)
	}
	return c
}

// answer reads the process's next line.
func (c *child) answer() string {
	if c.out.Scan() {
		return c.out.Text()
	}
	if err := c.out.Err(); err != nil {
		return "error " + err.Error()
	}
	return "error the process ended"
}

func (c *child) phase(op string, d time.Duration) (int, time.Duration, error) {
	if _, err := fmt.Fprintf(c.in, "%s %d\n", op, d.Nanoseconds()); err != nil {
		return 0, 0, fmt.Errorf("the %s process: %v", c.name, err)
	}
	line := c.answer()
	var ops int
	var ns int64
	if _, err := fmt.Sscanf(line, "ok %d %d", &ops, &ns); err != nil {
		return 0, 0, fmt.Errorf("the %s process, %s: %s", c.name, op, strings.TrimPrefix(line, "error "))
	}
	return ops, time.Duration(ns), nil
}

// stop closes the process's input, which ends it, and waits for it; one
// that does not end in a minute is killed.
func (c *child) stop() {
	c.in.Close()
	done := make(chan struct{})
	go func() {
		c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		c.cmd.Process.Kill()
		<-done
	}
}
