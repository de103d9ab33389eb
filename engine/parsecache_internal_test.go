package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestTheSameBytesParseOnce: a scenario sent again as the same bytes is
// the Prepared the first parse made, equal to what a fresh parse makes;
// other bytes (another seed) are parsed on their own.
func TestTheSameBytesParseOnce(t *testing.T) {
	data := presetBytes(t, "paused-holder")
	first, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Error("the same bytes were parsed again instead of taken from the cache")
	}
	fresh, err := parseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh.Scenario(), again.Scenario()) {
		t.Errorf("the kept scenario differs from a fresh parse:\n%+v\n%+v", again.Scenario(), fresh.Scenario())
	}
	other := strings.Replace(string(data), `"seed":`, `"seed":1`, 1)
	p, err := ParseScenario([]byte(other))
	if err != nil {
		t.Fatal(err)
	}
	if p == first || p.Seed() == first.Seed() {
		t.Errorf("another seed's bytes gave seed %d, the first gave %d", p.Seed(), first.Seed())
	}
}

// TestACachedScenarioFollowsTheRegistry: what is valid depends on the
// backends registered, so a scenario on a backend that is removed is
// refused again, with its field, though the same bytes were accepted
// while it was there.
func TestACachedScenarioFollowsTheRegistry(t *testing.T) {
	toy, _ := LookupBackend(BackendSingle)
	toy.Name = "toy-cached"
	if err := RegisterBackend(toy); err != nil {
		t.Fatal(err)
	}
	removed := false
	t.Cleanup(func() {
		if !removed {
			UnregisterBackend(toy.Name)
		}
	})
	data := []byte(`{"lock":{"backend":"toy-cached"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`)
	for range 2 {
		if _, err := ParseScenario(data); err != nil {
			t.Fatalf("on the registered toy: %v", err)
		}
	}
	UnregisterBackend(toy.Name)
	removed = true
	if _, err := ParseScenario(data); err == nil || !strings.Contains(err.Error(), "lock.backend") {
		t.Errorf("on a backend no longer registered: %v, want an error naming lock.backend", err)
	}
}

// TestTheParseCacheIsBounded: bytes past parseCacheMaxSize are never
// kept, and the cache never holds more than parseCacheEntries scenarios,
// however many different ones come; a refused scenario is refused again.
func TestTheParseCacheIsBounded(t *testing.T) {
	data := presetBytes(t, "paused-holder")
	for i := range parseCacheEntries + 10 {
		seeded := strings.Replace(string(data), `"seed":`, fmt.Sprintf(`"seed":%d`, i+1), 1)
		if _, err := ParseScenario([]byte(seeded)); err != nil {
			t.Fatal(err)
		}
		parsed.mu.Lock()
		n := len(parsed.byKey)
		parsed.mu.Unlock()
		if n > parseCacheEntries {
			t.Fatalf("the cache holds %d scenarios, at most %d are kept", n, parseCacheEntries)
		}
	}
	padded := append(append([]byte{}, data...), strings.Repeat(" ", parseCacheMaxSize)...)
	first, err := ParseScenario(padded)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := ParseScenario(padded); again == first {
		t.Errorf("a scenario of %d bytes was kept; at most %d are", len(padded), parseCacheMaxSize)
	}
	bad := []byte(`{"lock":{"nodes":4}}`)
	for range 2 {
		if _, err := ParseScenario(bad); err == nil || !strings.Contains(err.Error(), "lock.nodes") {
			t.Errorf("a group of four nodes: %v, want an error naming lock.nodes", err)
		}
	}
}

// presetBytes is a preset's scenario as a browser sends it.
func presetBytes(t *testing.T, name string) []byte {
	t.Helper()
	p, err := LoadPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(p.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"seed":`) {
		t.Fatalf("%s's JSON has no seed to change: %s", name, data)
	}
	return data
}
