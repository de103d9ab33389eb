package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestServeLearnerLiveFlagsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--max-learner-streams", "0"}, nil, "--max-learner-streams: must be positive"},
		{[]string{"--learner-streams-per-learner", "-1"}, nil, "--learner-streams-per-learner: must be positive"},
		{[]string{"--learner-streams-per-learner", "1000"}, nil, "learner-streams-per-learner: must be between 1 and 100, not 1000"},
		{[]string{"--learner-stream-max-age", "48h"}, nil, "learner-stream-max-age: must be between 100ms and 24h, not 48h0m0s"},
		{nil, map[string]string{"PLAYGROUND_LEARNER_POLL": "often"}, `PLAYGROUND_LEARNER_POLL (for --learner-poll): "often" is not valid`},
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

// TestServeLearnerPollReachesThePage: --learner-poll is what /api/me
// tells a learner's page to poll at.
func TestServeLearnerPollReachesThePage(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--learner-poll", "7s"}, noEnv, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	url := regexp.MustCompile(`http://\S+`).FindString(line)
	res, err := http.Post(url+"/api/classes", "application/json", strings.NewReader(`{"name":"Poll"}`))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]string
	json.NewDecoder(res.Body).Decode(&c)
	res.Body.Close()
	res, err = http.Post(url+"/api/classes/"+c["code"]+"/join", "application/json", strings.NewReader(`{"name":"Ada"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	req, _ := http.NewRequest("GET", url+"/api/me", nil)
	for _, ck := range res.Cookies() {
		req.AddCookie(ck)
	}
	me, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		PollMS int64 `json:"poll_ms"`
	}
	json.NewDecoder(me.Body).Decode(&v)
	me.Body.Close()
	if v.PollMS != 7000 {
		t.Errorf("/api/me poll_ms %d, want 7000", v.PollMS)
	}
	cancel()
	waitServe(t, done)
}
