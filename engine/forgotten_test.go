package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// TestAForgottenGrantIsSaid: wherever restart-forgets' crash falls, every
// grant the server forgets (a grant_forgotten event) is counted in the
// summary and said in the verdict, and a run that forgets none says
// nothing of it. Before, a run whose server forgot a grant nobody else
// took was headed "SAFE: no stale write" with nothing more, while its lock
// history was judged not linearizable.
func TestAForgottenGrantIsSaid(t *testing.T) {
	forgot := 0
	for crash := int64(200); crash <= 9000; crash += 350 {
		sc := mustPreset(t, "restart-forgets", true,
			"faults[0].at", fmt.Sprintf("%dms", crash), "faults[1].at", fmt.Sprintf("%dms", crash+200))
		res := mustRun(t, sc)
		n := len(find(res, "", engine.KindGrantForgotten))
		forgot += n
		v := engine.Verdict(res.Summary)
		// A release it forgot is said apart (TestAForgottenReleaseIsSaid).
		said := strings.Contains(v, "while its lease ran")
		if res.Summary.ForgottenGrants != n || said != (n > 0) {
			t.Errorf("crash at %dms: %d grants forgotten, summary counts %d; verdict %q", crash, n, res.Summary.ForgottenGrants, v)
		}
		if n == 1 && !strings.Contains(v, "forgot 1 grant while its lease ran") {
			t.Errorf("crash at %dms: verdict %q", crash, v)
		}
	}
	if forgot == 0 {
		t.Fatal("no crash position made the server forget a grant: the sweep tests nothing")
	}
}

// TestChaosNamesTheForgottenGrants: on single, every lock history chaos
// finds not linearizable is explained in its report: by a clock, by a
// grant the server forgot, or by a finding.
func TestChaosNamesTheForgottenGrants(t *testing.T) {
	runs := 100
	if testing.Short() {
		runs = 20
	}
	rep, err := engine.Chaos(context.Background(), engine.ChaosOptions{Runs: runs, Seed: 1, Backend: "single", Fencing: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.IllegalForgotten == 0 {
		t.Fatalf("no history with a forgotten grant in %d runs: %+v", runs, rep.Linearizability)
	}
	if unexplained := rep.Linearizability.Illegal - rep.IllegalByClock - rep.IllegalForgotten; unexplained > rep.Violations {
		t.Errorf("%d histories not linearizable, %d by a clock, %d with a forgotten grant, %d findings: some say nothing of why",
			rep.Linearizability.Illegal, rep.IllegalByClock, rep.IllegalForgotten, rep.Violations)
	}
}
