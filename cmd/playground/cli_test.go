package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(context.Background(), args, func(string) string { return "" }, &out, &errb)
	return out.String(), errb.String(), err
}

func TestRunPresetJSON(t *testing.T) {
	out, _, err := runCLI(t, "run", "--preset", "nightly-total", "--fencing", "off", "--format", "json")
	if err != nil {
		t.Fatalf("an unsafe outcome is a result, not an error: %v", err)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output is not the contract's JSON: %v\n%s", err, out)
	}
	if res.Summary.FinalValue != 42000 || res.Summary.ExpectedValue != 45000 || res.Summary.Safe {
		t.Errorf("summary: %+v", res.Summary)
	}
	if !strings.Contains(out, `"sql": "UPDATE records SET value = ? WHERE key = ?"`) {
		t.Errorf("the SQL should be printed as is, without HTML escapes")
	}
}

// TestRunPresetText: a failure preset breaks as it ships (no flag), and
// the fix its watch text names (--fencing on) mends it.
func TestRunPresetText(t *testing.T) {
	verdict := func(out string) string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[len(lines)-1]
	}
	out, _, err := runCLI(t, "run", "--preset", "paused-holder")
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(out); !strings.HasPrefix(v, "UNSAFE: stale write accepted") {
		t.Errorf("with no flag paused-holder should be unsafe: %q", v)
	}
	out, _, err = runCLI(t, "run", "--preset", "paused-holder", "--fencing", "on")
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(out); !strings.HasPrefix(v, "SAFE: every stale write was refused") {
		t.Errorf("verdict line: %q", v)
	}
	if !strings.Contains(out, "refused client-1's write of 42,000: token 33 < 34") {
		t.Errorf("the timeline should say why the write was refused:\n%s", out)
	}
}

func TestRunOverrides(t *testing.T) {
	out, _, err := runCLI(t, "run", "--preset", "crashed-holder", "--set", "lock.lease=600s", "--set", "until=700s", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var res engine.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Events {
		if e.Actor == "client-2" && e.Kind == engine.KindGranted && e.T != 600000 {
			t.Errorf("with a 600 s lease client-2 should wait 600 s, got %d ms", e.T)
		}
	}
}

func TestRunConfigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yaml := "title: mine\nfencing: true\nclients:\n  - name: c1\n    steps: [{do: acquire}, {do: read}, {do: write, add: 5}, {do: release}]\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "run", "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "mine (fencing on)") || !strings.Contains(out, "SAFE") {
		t.Errorf("output:\n%s", out)
	}
}

func TestBadInputExits2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"clients":[{"name":"a","steps":[{"do":"work","for":"-1s"}]}]}`), 0o600)
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"run", "--preset", "nope"}, `unknown preset "nope"`},
		{[]string{"run", "--config", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"run", "--config", bad}, "clients[0].steps[0].for: must be positive"},
		{[]string{"run", "--preset", "paused-holder", "--fencing", "maybe"}, "--fencing: must be on or off"},
		{[]string{"run", "--preset", "paused-holder", "--set", "lock.lease"}, "path=value"},
		{[]string{"run", "--preset", "paused-holder", "--set", "lock.lease=5ms"}, "lock.lease: must be between 100ms"},
		{[]string{"run", "--preset", "paused-holder", "--format", "xml"}, "--format"},
		{[]string{"run"}, "give --preset NAME or --config FILE"},
		{[]string{"run", "--preset", "a", "--config", "b"}, "not both"},
		{[]string{"run", "--bogus"}, "flag provided but not defined"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tc := range cases {
		_, _, err := runCLI(t, tc.args...)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v: got %v, want a usage error saying %q", tc.args, err, tc.says)
		}
	}
}

func TestPresetsCommand(t *testing.T) {
	out, _, err := runCLI(t, "presets", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ Name, Title, Question, Watch string }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != len(engine.PresetNames()) || list[0].Name != "baseline" || list[0].Watch == "" || list[0].Question == "" {
		t.Errorf("presets: %+v", list)
	}
	// The text listing asks each preset's question and keeps its outcome
	// for after a run.
	text, _, err := runCLI(t, "presets")
	p, _ := engine.LoadPreset("paused-holder")
	if err != nil || !strings.Contains(text, "ride-claim") || !strings.Contains(text, p.Question) || strings.Contains(text, p.Watch) {
		t.Errorf("text listing: %v\n%s", err, text)
	}
}

func TestChaosCommand(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCLI(t, "chaos", "--runs", "40", "--seed", "3", "--backend", "async-replica", "--nodes", "2", "--format", "json", "--save", dir)
	if err != nil {
		t.Fatal(err)
	}
	var rep engine.ChaosReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Runs != 40 || rep.Violations == 0 || len(rep.Examples) == 0 || rep.ByKind.DuplicateToken == 0 || rep.Linearizability.Illegal == 0 {
		t.Fatalf("an asynchronous replica should fail some schedules, handing tokens out twice: %+v", rep)
	}
	// It is the report engine.Chaos gives, which POST /api/chaos returns too.
	want, err := engine.Chaos(context.Background(), engine.ChaosOptions{Runs: 40, Seed: 3, Backend: "async-replica", Nodes: 2, Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	if wj, _ := json.Marshal(want); !jsonEqual(t, wj, []byte(out)) {
		t.Errorf("the CLI's report differs from engine.Chaos's:\n%s\nwant\n%s", out, wj)
	}
	// The report's JSON has the contract's keys.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"runs", "violations", "by_kind", "linearizability", "examples"} {
		if raw[key] == nil {
			t.Errorf("the JSON report has no %q", key)
		}
	}
	var lin map[string]int
	if err := json.Unmarshal(raw["linearizability"], &lin); err != nil || len(lin) != 3 || lin["ok"]+lin["illegal"]+lin["unknown"] != 40 {
		t.Errorf("linearizability is {ok, illegal, unknown}: %s", raw["linearizability"])
	}
	// The saved example is runnable with run --config and still fails.
	file := filepath.Join(dir, fmt.Sprintf("chaos-%d.json", rep.Examples[0].Seed))
	text, _, err := runCLI(t, "run", "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "handed out twice") {
		t.Errorf("the saved example should still hand a token out twice:\n%s", text)
	}
	// The text report gives the rate, the kinds and the verdicts.
	text, _, err = runCLI(t, "chaos", "--runs", "20", "--seed", "3", "--backend", "redlock")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fencing off", "violations:", "stale write", "lock histories:", "no fault struck"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q:\n%s", want, text)
		}
	}
	// A history broken only by renewals a lost disk took is counted among
	// what the service forgot, and the words say renewals can be.
	text, _, err = runCLI(t, "chaos", "--runs", "1", "--seed", "262", "--backend", "zookeeper", "--lose-disk")
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 with a grant, release or renewals the lock service forgot"; !strings.Contains(text, want) {
		t.Errorf("the text report lacks %q:\n%s", want, text)
	}
	for _, bad := range [][]string{
		{"chaos", "--runs", "0"},
		{"chaos", "--seed", "-1"},
		{"chaos", "--backend", "consul"},
		{"chaos", "--backend", "raft", "--nodes", "4"},
		{"chaos", "--backend", "redlock", "--fencing", "on"},
		{"chaos", "--fencing", "sometimes"},
		{"chaos", "--examples", "9"},
		{"chaos", "--backend", "single", "--lose-disk"},
	} {
		var ue *usageError
		if _, _, err := runCLI(t, bad...); !errors.As(err, &ue) {
			t.Errorf("%v: got %v, want a usage error", bad, err)
		}
	}
}

func TestRunHistory(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ preset, file, says string }{
		{"raft-failover", "h.json", "linearizable"},
		{"async-failover", "h.html", "NOT linearizable"},
		{"redlock-clock-jump", "r.json", "NOT linearizable"},
		{"ride-claim", "c.json", "no lock operations, nothing to check"},
	} {
		path := filepath.Join(dir, tc.file)
		_, stderr, err := runCLI(t, "run", "--preset", tc.preset, "--history", path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, tc.says+";") {
			t.Errorf("%s: %q", tc.preset, stderr)
		}
		if strings.Contains(stderr, " 0 operations") {
			t.Errorf("%s: an empty history is never called linearizable: %q", tc.preset, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil || (tc.preset != "ride-claim" && len(data) < 100) {
			t.Errorf("%s: history file: %v (%d bytes)", tc.preset, err, len(data))
		}
	}
	var ops []map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "h.json"))
	if err := json.Unmarshal(data, &ops); err != nil || len(ops) == 0 || ops[0]["input"] == nil {
		t.Errorf("JSON history: %v %v", err, ops)
	}
}

// jsonEqual reports whether two JSON documents hold the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestRunHeadsAnUnavailableRun: a run where the data came out right only
// because nothing got done is not "SAFE" on the command line either: its
// verdict line and its JSON carry the heading the web page gives it.
func TestRunHeadsAnUnavailableRun(t *testing.T) {
	out, _, err := runCLI(t, "run", "--preset", "lock-server-down")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if v := lines[len(lines)-1]; !strings.HasPrefix(v, "UNAVAILABLE for 36s: no write happened; client-2 never got the lock; checked: no stale write") {
		t.Errorf("verdict line %q", v)
	}
	out, _, err = runCLI(t, "run", "--preset", "lock-server-down", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Heading engine.Heading `json:"heading"`
		Events  []engine.Event `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Heading.Kind != engine.HeadUnavailable || len(res.Events) == 0 {
		t.Errorf("JSON heading %+v with %d events", res.Heading, len(res.Events))
	}
}
