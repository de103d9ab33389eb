package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Environment of the durability test's child process.
const (
	childAddrEnv  = "PLAYGROUND_CLASSROOM_CHILD_ADDR"
	childTokenEnv = "PLAYGROUND_CLASSROOM_CHILD_TOKEN"
)

// acksBeforeKill is how many acknowledged attempts the parent waits for
// before it kills the child mid-stream.
const acksBeforeKill = 150

// testDurability runs the test binary again as a child that records
// attempts one after another and prints "ack EXERCISE TRY" once each
// Record returns, kills it with SIGKILL while it is writing, reopens the
// store and checks that every acknowledged attempt is there.
func testDurability(t *testing.T, h Harness) {
	if addr := os.Getenv(childAddrEnv); addr != "" {
		durabilityChild(t, h, addr, os.Getenv(childTokenEnv))
		return
	}
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{})
	nc := mustCreate(t, s, "Durable")
	sess := mustJoin(t, s, nc.Class.Code, "Ana")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// -test.run takes one pattern per level of the test's name.
	levels := strings.Split(t.Name(), "/")
	for i, l := range levels {
		levels[i] = "^" + l + "$"
	}
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(levels, "/"), "-test.count=1", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), childAddrEnv+"="+addr, childTokenEnv+"="+sess.Token)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	watchdog := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer watchdog.Stop()

	acked := map[string]int{} // exercise -> highest acknowledged try
	n := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var ex string
		var try int
		if _, err := fmt.Sscanf(sc.Text(), "ack %s %d", &ex, &try); err != nil {
			continue // the test framework's own lines
		}
		acked[ex] = max(acked[ex], try)
		n++
		if n == acksBeforeKill {
			cmd.Process.Kill() // SIGKILL: no deferred code, no flush, no Close
		}
	}
	// Lines the child wrote before it died are acknowledgements too; the
	// scanner has read them all by the end of the pipe.
	cmd.Wait()
	if n < acksBeforeKill {
		t.Fatalf("the child acknowledged %d attempts before it ended, want %d; its stderr:\n%s", n, acksBeforeKill, stderr.String())
	}

	s = h.MustOpen(t, addr, classroom.Options{})
	ps, err := s.LearnerProgress(context.Background(), nc.Class.Code, classroom.Credentials{TeacherKey: nc.TeacherKey}, sess.Learner.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, total := map[string]int{}, 0
	for _, p := range ps {
		stored[p.Exercise] = p.Tries
		total += p.Tries
	}
	for ex, try := range acked {
		if stored[ex] < try {
			t.Errorf("exercise %s: try %d was acknowledged, but only %d tries survived the kill", ex, try, stored[ex])
		}
	}
	// The child writes one attempt at a time, so at most one can have
	// committed without its acknowledgement reaching the pipe.
	if total < n || total > n+1 {
		t.Errorf("%d attempts stored, %d acknowledged", total, n)
	}
	t.Logf("%d acknowledged attempts, %d stored after SIGKILL", n, total)
}

// durabilityChild records until it is killed.
func durabilityChild(t *testing.T, h Harness, addr, token string) {
	ctx := context.Background()
	s, err := h.Open(ctx, addr, classroom.Options{Limits: classroom.Limits{MaxAttemptsPerExercise: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100_000; i++ {
		a, err := s.Record(ctx, token, classroom.Attempt{Exercise: fmt.Sprintf("ex-%d", i%7), Answer: fmt.Sprint(i), Graded: true})
		if err != nil {
			t.Fatal(err)
		}
		// Straight to the file descriptor, unbuffered: once this line is
		// written, the parent may count the attempt as acknowledged.
		fmt.Fprintf(os.Stdout, "ack %s %d\n", a.Exercise, a.Try)
	}
}
