package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/engine"
)

// TestConflictNamesTheTwoOperations: a failover that hands token 33 out
// twice conflicts on the two grants, named by client, time and answer; a
// clock jump on the two grants whose leases overlap in true time; a
// linearizable history has no conflict.
func TestConflictNamesTheTwoOperations(t *testing.T) {
	type op struct {
		client string
		at     int64
		answer string
	}
	for name, want := range map[string][2]op{
		"async-failover":     {{"client-1", 0, "token 33 until 10s"}, {"client-2", 1500, "token 33 until 11.5s"}},
		"clock-jump":         {{"client-1", 0, "token 33 until 10s"}, {"client-2", 3000, "token 34 until 13s"}},
		"redlock-clock-jump": {{"client-1", 100, "a majority until 9.998s"}, {"client-2", 3000, "a majority until 12.898s"}},
	} {
		p, err := engine.LoadPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		c := mustRun(t, p.Scenario).History().Conflict(5 * time.Second)
		if c == nil || c.Earlier == nil {
			t.Fatalf("%s: no conflict named: %+v", name, c)
		}
		got := [2]op{{c.Earlier.Client, c.Earlier.At, c.Earlier.Answer}, {c.Later.Client, c.Later.At, c.Later.Answer}}
		if got != want || c.Earlier.Op != "acquire" || c.Later.Op != "acquire" {
			t.Errorf("%s: conflict %+v, want %+v", name, got, want)
		}
		if !strings.Contains(c.Why, want[0].client+"'s acquire at") || !strings.Contains(c.Why, want[1].client+"'s acquire at") {
			t.Errorf("%s: %q does not name both", name, c.Why)
		}
	}
	p, err := engine.LoadPreset("raft-failover")
	if err != nil {
		t.Fatal(err)
	}
	if c := mustRun(t, p.Scenario).History().Conflict(5 * time.Second); c != nil {
		t.Errorf("raft-failover is linearizable, yet: %+v", c)
	}
}
