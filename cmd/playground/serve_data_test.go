package main

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesADataFolderInUse starts a server on a data folder, then
// a second one on the same folder: the second refuses to start, saying
// which folder and that another server holds it, rather than serve
// dashboards that would miss the first one's changes.
func TestServeRefusesADataFolderInUse(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	data := filepath.Join(t.TempDir(), "data")
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data}, noEnv, w, io.Discard)
		w.Close()
	}()
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("the first server did not start: %v", err)
	}
	go io.Copy(io.Discard, out)

	err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--data", data}, noEnv, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("a second server started on a data folder in use")
	}
	for _, want := range []string{"--data " + data, "another playground server", "holds the data folder " + data} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("second server: %q; want it to say %q", err, want)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the first server: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the first server did not stop")
	}
	// Stopped, it lets the folder go.
	ctx2, cancel2 := context.WithCancel(t.Context())
	out2, w2 := io.Pipe()
	go func() {
		done <- run(ctx2, []string{"serve", "--addr", "127.0.0.1:0", "--data", data}, noEnv, w2, io.Discard)
		w2.Close()
	}()
	if _, err := bufio.NewReader(out2).ReadString('\n'); err != nil {
		t.Fatalf("a server on the freed folder did not start: %v", err)
	}
	go io.Copy(io.Discard, out2)
	cancel2()
	if err := <-done; err != nil {
		t.Fatalf("the server on the freed folder: %v", err)
	}
}
