package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

const base = `{"clients":[{"name":"client-1","steps":[{"do":"acquire"},{"do":"read"},{"do":"work","for":"1s"},{"do":"write","add":1},{"do":"release"}]},
 {"name":"client-2","steps":[{"do":"acquire"}]}]%s}`

func TestBadScenarios(t *testing.T) {
	many := make([]string, 11)
	for i := range many {
		many[i] = fmt.Sprintf(`{"name":"c%d","steps":[{"do":"acquire"}]}`, i)
	}
	cases := []struct {
		name, input, field, says string
	}{
		{"negative work", `{"clients":[{"name":"a","steps":[{"do":"work","for":"-1s"}]}]}`, "clients[0].steps[0].for", "must be positive"},
		{"zero pause", `{"clients":[{"name":"a","steps":[{"do":"pause","for":"0s"}]}]}`, "clients[0].steps[0].for", "must be positive"},
		{"absurd lease", `{"lock":{"lease":"100h"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "lock.lease", "between 100ms and 1h0m0s"},
		{"tiny lease", `{"lock":{"lease":"5ms"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "lock.lease", "between 100ms"},
		{"not a duration", `{"until":"soon","clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "until", `"soon" is not a duration`},
		{"number for a duration", `{"until":30,"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "until", "30 is not a duration"},
		{"sub-millisecond", `{"until":"1.5ms","clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "until", "whole milliseconds"},
		{"too long a run", `{"until":"2h","clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "until", "between 1s and 1h0m0s"},
		{"unknown step", `{"clients":[{"name":"a","steps":[{"do":"dance"}]}]}`, "clients[0].steps[0].do", `unknown step "dance"`},
		{"unknown backend", `{"lock":{"backend":"chubby"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "lock.backend", `unknown backend "chubby"`},
		{"even raft group", `{"lock":{"nodes":4},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "lock.nodes", "1, 3 or 5"},
		{"too many clients", `{"clients":[` + strings.Join(many, ",") + `]}`, "clients", "at most 10 clients, not 11"},
		{"no clients", `{"clients":[]}`, "clients", "at least one"},
		{"missing name", `{"clients":[{"steps":[{"do":"acquire"}]}]}`, "clients[0].name", "is required"},
		{"bad name", `{"clients":[{"name":"<b>x</b>","steps":[{"do":"acquire"}]}]}`, "clients[0].name", "letters, digits"},
		{"duplicate names", `{"clients":[{"name":"a","steps":[{"do":"acquire"}]},{"name":"a","steps":[{"do":"acquire"}]}]}`, "clients[1].name", "used by another client"},
		{"pause aimed at nobody", fmt.Sprintf(base, `,"faults":[{"at":"1s","do":"pause","target":"client-9","for":"2s"}]`), "faults[0].target", `no client is named "client-9"`},
		{"fault after the end", fmt.Sprintf(base, `,"until":"10s","faults":[{"at":"20s","do":"pause","target":"client-1","for":"2s"}]`), "faults[0].at", "between 0s and 10s"},
		{"unknown fault", fmt.Sprintf(base, `,"faults":[{"at":"1s","do":"explode","target":"client-1"}]`), "faults[0].do", `unknown fault "explode"`},
		{"delay of an unknown kind", fmt.Sprintf(base, `,"faults":[{"at":"1s","do":"delay","target":"client-1","kind":"fax","by":"1s"}]`), "faults[0].kind", `not "fax"`},
		{"delay without by", fmt.Sprintf(base, `,"faults":[{"at":"1s","do":"delay","target":"client-1","kind":"write"}]`), "faults[0].by", "is required"},
		{"write without amount", `{"clients":[{"name":"a","steps":[{"do":"read"},{"do":"write"}]}]}`, "clients[0].steps[1]", `needs "add" or "set"`},
		{"add before read", `{"clients":[{"name":"a","steps":[{"do":"write","add":5}]}]}`, "clients[0].steps[0].add", "put a read step before it"},
		{"huge amount", `{"clients":[{"name":"a","steps":[{"do":"write","set":1e15}]}]}`, "clients[0].steps[0].set", "whole number between"},
		{"large amount", `{"clients":[{"name":"a","steps":[{"do":"write","set":2000000000000}]}]}`, "clients[0].steps[0].set", "between"},
		{"wrong type deep", `{"clients":[{"name":"a","steps":[{"do":"acquire"}]},{"name":"b","steps":[{"do":"read"},{"do":"write","add":"lots"}]}]}`, "clients[1].steps[1].add", "must be a number"},
		{"on_refused", `{"clients":[{"name":"a","on_refused":"panic","steps":[{"do":"acquire"}]}]}`, "clients[0].on_refused", `"stop" or "retry"`},
		{"too many steps", `{"clients":[{"name":"a","steps":[` + strings.Repeat(`{"do":"read"},`, 50) + `{"do":"read"}]}]}`, "clients[0].steps", "at most 50 steps"},
		{"renewal too fast", `{"clients":[{"name":"a","renew_every":"1ms","steps":[{"do":"acquire"}]}]}`, "clients[0].renew_every", "between 10ms"},
		{"unknown field", `{"colour":"red","clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "colour", "not a scenario field"},
		{"wrong type", `{"lock":{"nodes":"three"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "lock.nodes", "must be a number"},
		{"broken JSON", `{"clients":[`, "scenario", "not valid JSON"},
		{"empty", "  ", "scenario", "is empty"},
		{"oversize", `{"title":"` + strings.Repeat("x", engine.MaxScenarioSize) + `"}`, "scenario", "at most 65536"},
		{"long question", fmt.Sprintf(base, `,"question":"`+strings.Repeat("x", 4*engine.MaxTitle+1)+`"`), "question", "at most 800 characters"},
		{"first token", `{"lock":{"first_token":-3},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`, "lock.first_token", "between 1 and"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.ParseScenario([]byte(tc.input))
			if err == nil {
				t.Fatalf("accepted")
			}
			var fe *engine.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %q does not name a field", err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
				t.Errorf("got %q, want field %s saying %q", err, tc.field, tc.says)
			}
		})
	}
}

func TestYAMLAndDefaults(t *testing.T) {
	p, err := engine.ParseScenario([]byte(`
title: from YAML
clients:
  - name: client-1
    renew_every: 3s
    steps:
      - do: acquire
      - do: release
`))
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenario()
	l := sc.Lock
	if l.Backend != "raft" || l.Nodes != 3 || l.Lease.MS() != 10000 || l.FirstToken != 33 || l.Latency.MS() != 0 {
		t.Errorf("defaults: %+v", l)
	}
	if sc.Clients[0].RenewEvery.MS() != 3000 || sc.Clients[0].OnRefused != "stop" || sc.Until.MS() != 60000 {
		t.Errorf("client defaults: %+v", sc.Clients[0])
	}
	res := mustRun(t, sc)
	if g := find(res, "client-1", engine.KindGranted); len(g) != 1 || g[0].Token != 33 {
		t.Errorf("grant: %v", g)
	}
}

// TestScenarioRoundTrip: a scenario written back to JSON reads the same.
func TestScenarioRoundTrip(t *testing.T) {
	for _, p := range engine.Presets() {
		again, err := engine.DecodeScenario([]byte(jsonOf(t, p.Scenario)))
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if jsonOf(t, again) != jsonOf(t, p.Scenario) {
			t.Errorf("%s does not round-trip", p.Name)
		}
		if p.Title == "" || len(p.Watch) < 40 {
			t.Errorf("%s needs a title and a what-to-watch text", p.Name)
		}
	}
}

func TestSetField(t *testing.T) {
	sc := mustPreset(t, "long-job", true, "clients[client-1].renew_every", "10s", "clients[1].retry_every", "2s", "fencing", "false", "lock.lease", "45s")
	if sc.Clients[0].RenewEvery.MS() != 10000 || sc.Clients[1].RetryEvery.MS() != 2000 || sc.Fencing || sc.Lock.Lease.MS() != 45000 {
		t.Errorf("fields not set: %+v", sc)
	}
	p, _ := engine.LoadPreset("long-job")
	for _, tc := range []struct{ path, value, says string }{
		{"clients[client-9].renew_every", "1s", `no element is named "client-9"`},
		{"clients[7].name", "x", "out of range"},
		{"lock.colour", "red", "not a scenario field"},
		{"lock.nodes", "many", "must be a number"},
		{"", "1", "path is empty"},
	} {
		if _, err := engine.SetField(p.Scenario, tc.path, tc.value); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("set %s=%s: %v, want %q", tc.path, tc.value, err, tc.says)
		}
	}
}

func TestSpeedBound(t *testing.T) {
	_, err := engine.Start(t.Context(), mustPrepare(t, mustPreset(t, "paused-holder", true)), engine.Options{Speed: -1})
	if err == nil || !strings.Contains(err.Error(), "speed") {
		t.Errorf("negative speed: %v", err)
	}
}
