package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseDays(t *testing.T) {
	for in, want := range map[string]time.Duration{"180d": 180 * 24 * time.Hour, "0d": 0, "36h": 36 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := parseDays(in); err != nil || got != want {
			t.Errorf("parseDays(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"d", "1.5d", "-3d", "99999d", "soon"} {
		if _, err := parseDays(in); err == nil {
			t.Errorf("parseDays(%q) took it", in)
		}
	}
}

func TestServeClassFlagsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--class-create-rate", "0"}, nil, "--class-create-rate: must be positive"},
		{[]string{"--class-create-burst", "-1"}, nil, "--class-create-burst: must be positive"},
		{[]string{"--dashboard-streams-per-key", "0"}, nil, "--dashboard-streams-per-key: must be positive"},
		{[]string{"--class-retention", "5m"}, nil, "--class-retention: must be at least 1h"},
		{[]string{"--class-grace", "forever"}, nil, `invalid value "forever" for flag -class-grace`},
		{nil, map[string]string{"PLAYGROUND_CLASS_RETENTION": "a year"}, `PLAYGROUND_CLASS_RETENTION (for --class-retention): "a year" is not valid`},
	} {
		getenv := func(k string) string { return tc.env[k] }
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, tc.args...)
		err := run(ctx, args, getenv, io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %v, want it to contain %q", tc.args, tc.env, err, tc.want)
		}
	}
}

// TestServeClassFlagsReachTheServer starts serve with a creation burst of
// one and a retention of two days: the second class is refused, and the
// dashboard says the first expires two days after it was made.
func TestServeClassFlagsReachTheServer(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "d"),
			"--class-create-burst", "1", "--class-retention", "2d"}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	url := regexp.MustCompile(`http://\S+`).FindString(line)
	create := func() (int, map[string]any) {
		res, err := http.Post(url+"/api/classes", "application/json", strings.NewReader(`{"name":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		json.NewDecoder(res.Body).Decode(&v)
		return res.StatusCode, v
	}
	status, c := create()
	if status != http.StatusCreated {
		t.Fatalf("first class: %d %v", status, c)
	}
	if status, v := create(); status != http.StatusTooManyRequests {
		t.Fatalf("second class with --class-create-burst 1: %d %v", status, v)
	}
	req, _ := http.NewRequest("GET", url+"/api/classes/"+c["code"].(string)+"/dashboard", nil)
	req.Header.Set("Authorization", "Bearer "+c["teacher_key"].(string))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Class struct {
			Lifecycle struct {
				ExpiresAt time.Time `json:"expires_at"`
			}
		}
	}
	json.NewDecoder(res.Body).Decode(&d)
	res.Body.Close()
	if left := time.Until(d.Class.Lifecycle.ExpiresAt); left < 47*time.Hour || left > 48*time.Hour {
		t.Errorf("a class made now expires in %v, want 2 days (--class-retention 2d)", left)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
