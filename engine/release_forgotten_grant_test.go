package engine_test

import (
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestReleaseOfForgottenGrantSaysSo (chaos543): node-1 rejoins as
// node-2's replica at 32.328s and the service forgets client-2's grant
// of token 34; client-2's write, held by the network until 39.053s, is
// accepted then, and node-2 answers its release. The release says the
// service had forgotten the grant, so it changed nothing. Before,
// "released token 34" read as if the grant had held the lock until then.
func TestReleaseOfForgottenGrantSaysSo(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(chaos543))
	if err != nil {
		t.Fatal(err)
	}
	for _, fencing := range []bool{true, false} {
		sc.Fencing = fencing
		res := mustRun(t, sc)
		forgot := find(res, "node-2", engine.KindGrantForgotten)
		if len(forgot) != 1 || forgot[0].T != 32328 || forgot[0].Token != 34 {
			t.Fatalf("fencing %v: grant_forgotten %v, want node-2's of token 34 at 32.328s", fencing, forgot)
		}
		released := find(res, "client-2", engine.KindReleased)
		if len(released) != 1 || released[0].T != 39053 || released[0].Node != "node-2" {
			t.Fatalf("fencing %v: releases %v, want node-2's at 39.053s", fencing, released)
		}
		want := "released token 34, but the lock service had forgotten that grant at 32.328s, so the release changed nothing"
		if got := engine.Describe(released[0]); got != want {
			t.Errorf("fencing %v: the release says %q, want %q", fencing, got, want)
		}
	}
}
