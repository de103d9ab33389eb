package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// builtinWords are what names the built-in etcd, ZooKeeper and Redlock
// backends: their names, their state's words, their event kinds and
// Redlock's client, model and common actor.
var builtinWords = regexp.MustCompile(`(?i)etcd|zookeeper|\bzk|zxid|revision|session_expired|lease_extended|watch_fired|KindWatch|KindSession|KindLeaseExt|redlock|quorumClient|quorumCall`)

// ownFile reports whether a file is a backend's own: its entry, its store,
// its model, its client side (etcd*.go, zk*.go, redlock*.go).
func ownFile(name string) bool {
	return strings.HasPrefix(name, "etcd") || strings.HasPrefix(name, "zk") || strings.HasPrefix(name, "redlock")
}

// namesAllowed are the places outside a backend's own files that may name
// one, each with why.
var namesAllowed = map[string][]string{
	// The one line a new backend adds its entry to.
	"registry.go": {"&redlockBackend, &zookeeperBackend, &etcdBackend"},
	// The presets' teaching order lists each preset by name, a backend's
	// presets too (its presets are its JSON files and their place here).
	"presets.go": {`"redlock-clock-jump"`, `"etcd-revision-token"`, `"etcd-txn-guard"`, `"etcd-leader-change"`, `"zookeeper-session-expiry"`},
	// The benchmark harness names the module that compares it with a real
	// etcd server (engine/etcdbench), not the backend.
	"lockdriver.go": {"the etcd comparison in engine/etcdbench"},
	"lockgroup.go":  {"own and the etcd", "comparison in engine/etcdbench"},
}

// TestSharedEngineCodeNamesNoBackend: the engine's shared files say nothing
// of etcd, ZooKeeper or Redlock (their state, ops, events, hooks, client
// side, chaos aims and common actor live in their own files, behind the
// entry's extension points), except where namesAllowed says why.
func TestSharedEngineCodeNamesNoBackend(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || ownFile(f) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		src := string(b)
		for _, ok := range namesAllowed[f] {
			src = strings.ReplaceAll(src, ok, "")
		}
		for i, line := range strings.Split(src, "\n") {
			if m := builtinWords.FindString(line); m != "" {
				t.Errorf("%s:%d names a built-in backend (%q): %s", f, i+1, m, strings.TrimSpace(line))
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d shared files checked", checked)
	}
}

// TestBackendKindsAreDocumented: every event kind a built-in backend's
// entry declares has its row in docs/scenarios.md's table of events, as
// its Doc line says it.
func TestBackendKindsAreDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range Backends() {
		for _, k := range backendEntry(name).Kinds {
			n++
			if !strings.Contains(string(b), "| `"+k.Kind+"` |") {
				t.Errorf("%s's event kind %s has no row in docs/scenarios.md", name, k.Kind)
			}
		}
	}
	if n < 4 {
		t.Errorf("only %d kinds declared: the built-in backends declare at least lease_extended, session_expired, watching and watch_fired", n)
	}
}
