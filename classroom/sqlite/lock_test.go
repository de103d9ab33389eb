package sqlite_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// lockChildEnv makes the test binary a server process that holds the
// data folder named in it until killed.
const lockChildEnv = "PLAYGROUND_LOCK_CHILD_DIR"

// TestDataFolderLockAcrossProcesses runs a second process that opens the
// data folder, as a first server would: this one's Open is refused with an
// error naming the folder and the holder's process. SIGKILL ends the
// holder without any cleanup, and the folder opens at once: a crashed
// server leaves no stale lock.
func TestDataFolderLockAcrossProcesses(t *testing.T) {
	if dir := os.Getenv(lockChildEnv); dir != "" {
		s, err := sqlite.Open(context.Background(), dir, classroom.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		os.Stdout.WriteString("open\n")
		io.Copy(io.Discard, os.Stdin) // until the parent kills us
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDataFolderLockAcrossProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	opened := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "open" {
				opened <- true
			}
		}
		close(opened)
	}()
	select {
	case ok := <-opened:
		if !ok {
			t.Fatal("the child ended without opening the store")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the child did not open the store within 60s")
	}

	_, err = sqlite.Open(context.Background(), dir, classroom.Options{})
	var inUse *sqlite.FolderInUseError
	if !errors.Is(err, sqlite.ErrFolderInUse) || !errors.As(err, &inUse) {
		t.Fatalf("opening a folder another process holds: %v", err)
	}
	if inUse.PID != cmd.Process.Pid || inUse.Dir != dir {
		t.Errorf("the error says process %d holds %s; the holder is %d on %s", inUse.PID, inUse.Dir, cmd.Process.Pid, dir)
	}
	for _, want := range []string{dir, "another playground server", "stop that server first"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err.Error(), want)
		}
	}

	cmd.Process.Kill() // SIGKILL: no Close, no deferred unlock
	cmd.Wait()
	s, err := sqlite.Open(context.Background(), dir, classroom.Options{})
	if err != nil {
		t.Fatalf("opening after the holder was killed: %v", err)
	}
	s.Close()
}
