package main

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestChaosHelpListsRegisteredBackends: the chaos command's help names the
// backends a guarded write and a lost disk apply to from their entries, so
// a backend registered later (a copy of etcd and of zookeeper, here) is
// listed with no word of the command changed.
func TestChaosHelpListsRegisteredBackends(t *testing.T) {
	for _, name := range []string{engine.BackendEtcd, engine.BackendZooKeeper} {
		b, _ := engine.LookupBackend(name)
		b.Name = "toy-" + name
		if err := engine.RegisterBackend(b); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { engine.UnregisterBackend(b.Name) })
	}
	_, help, _ := runCLI(t, "chaos", "-h")
	for _, want := range []string{"guarded by the lock key's token (etcd, toy-etcd)", "lose_disk: raft, zookeeper, toy-zookeeper)", "lock backend: raft, single, async-replica, redlock, zookeeper, etcd, toy-etcd, toy-zookeeper"} {
		if !strings.Contains(help, want) {
			t.Errorf("chaos -h lacks %q:\n%s", want, help)
		}
	}
}
