package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeRefusesABrokenLessonFolder: a teacher's folder with a broken
// file stops start-up with a usage error (exit status 2) naming the file
// and line, before anything listens.
func TestServeRefusesABrokenLessonFolder(t *testing.T) {
	dir := t.TempDir()
	lesson := "---\ntitle: A lesson\norder: 1\nsummary: One line.\nquestion: Why?\nexercises: [missing-one]\n---\n\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "01-a-lesson.md"), []byte(lesson), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, how := range []struct {
		name string
		args []string
		env  func(string) string
	}{
		{"flag", []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--lessons", dir}, noEnv},
		{"env", []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, func(k string) string {
			if k == "PLAYGROUND_LESSONS" {
				return dir
			}
			return ""
		}},
	} {
		t.Run(how.name, func(t *testing.T) {
			err := run(t.Context(), how.args, how.env, io.Discard, io.Discard)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error", err)
			}
			want := filepath.Join(dir, "01-a-lesson.md") + ":6"
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "missing-one") {
				t.Errorf("error %q does not name %s and the missing exercise", err, want)
			}
		})
	}
	err := run(t.Context(), []string{"serve", "--data", t.TempDir(), "--lessons", filepath.Join(dir, "nope")}, noEnv, io.Discard, io.Discard)
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--lessons") {
		t.Errorf("a missing folder: %v", err)
	}
}

// TestServeUsesTheLessonFolder: the pages show the folder's lessons.
func TestServeUsesTheLessonFolder(t *testing.T) {
	dir := t.TempDir()
	lesson := "---\ntitle: A teacher's own lesson\norder: 1\nsummary: One line.\nquestion: Why would a teacher add one?\n---\n\n## First part\n\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "01-own.md"), []byte(lesson), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--lessons", dir}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	go io.Copy(io.Discard, out)
	url := regexp.MustCompile(`http://\S+`).FindString(line)
	res, err := http.Get(url + "/lessons/own")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "A teacher&#39;s own lesson") {
		t.Errorf("GET /lessons/own: %d, the folder's lesson not shown", res.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
