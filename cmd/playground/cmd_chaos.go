package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// chaosCmd runs generated fault schedules, aimed at what happens in each
// run, and reports the violations, each shrunk to the smallest scenario
// that still has it. Its JSON is the same report POST /api/chaos returns.
func chaosCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	runs := fs.Int("runs", 100, "how many generated scenarios to run")
	seed := fs.Int64("seed", 1, "the first seed; run i uses seed+i")
	backend := fs.String("backend", "raft", "lock backend: "+strings.Join(engine.Backends(), ", "))
	nodes := fs.Int("nodes", 0, "lock nodes (the backend's default when 0)")
	fencing := fs.String("fencing", "on", "fencing: on or off (off by default for redlock, which has no token)")
	// The backends that take a guard or a lost disk, as their entries say.
	var txn, disk []string
	for _, b := range engine.Capabilities().Backends {
		if b.Txn {
			txn = append(txn, b.Name)
		}
		if b.LoseDisk {
			disk = append(disk, b.Name)
		}
	}
	guard := fs.String("guard", "", "\"txn\": every write is a transaction on the lock service's own store, guarded by the lock key's token ("+strings.Join(txn, ", ")+")")
	loseDisk := fs.Bool("lose-disk", false, "let the generator make a node lose its disk (lose_disk: "+strings.Join(disk, ", ")+"); off, fencing on Raft never fails")
	examples := fs.Int("examples", 3, fmt.Sprintf("how many violations to shrink and show (1 to %d)", engine.MaxChaosExamples))
	format := fs.String("format", "text", "output format: text or json")
	save := fs.String("save", "", "write each example's scenario to `DIR` as chaos-SEED.json")
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	if *fencing != "on" && *fencing != "off" {
		return usagef("--fencing: must be on or off, not %q", *fencing)
	}
	if *format != "text" && *format != "json" {
		return usagef("--format: must be text or json, not %q", *format)
	}
	if *examples < 1 || *examples > engine.MaxChaosExamples {
		return usagef("--examples: must be between 1 and %d, not %d", engine.MaxChaosExamples, *examples)
	}
	fencingSet := false
	fs.Visit(func(f *flag.Flag) { fencingSet = fencingSet || f.Name == "fencing" })
	fenced := *fencing == "on"
	if b, _ := engine.LookupBackend(*backend); !b.Tokens && !fencingSet {
		fenced = false // a backend without a token (Redlock) cannot fence
	}
	// The collector runs as the server's does (web.ApplyMemoryBudget: a
	// collection when the heap is five times what is live, GOGC and
	// GOMEMLIMIT in the environment still win). A batch allocates fast and
	// keeps little (a few runs' worth, about 30 MB): at Go's default the
	// collector took a sixth of a Raft batch's CPU (docs/benchmarks.md).
	defer web.ApplyMemoryBudget(chaosMemoryBudget, os.Getenv)()
	opt := engine.ChaosOptions{Runs: *runs, Seed: *seed, Backend: *backend, Nodes: *nodes, Fencing: fenced, Guard: *guard, Examples: *examples, LoseDisk: *loseDisk}
	rep, err := engine.Chaos(ctx, opt)
	if err != nil {
		var fe *engine.FieldError
		if asField(err, &fe) {
			fe.Field = strings.ReplaceAll(fe.Field, "_", "-") // the flag's name
			return &usageError{fmt.Errorf("--%s", err)}
		}
		return err
	}
	if *save != "" {
		if err := saveExamples(*save, rep.Examples); err != nil {
			return err
		}
	}
	if *format == "json" {
		return writeJSON(stdout, rep)
	}
	writeChaosText(stdout, rep, *save)
	return nil
}

// chaosMemoryBudget is the soft memory limit of a chaos batch run from the
// command line, far above what one holds.
const chaosMemoryBudget = 512 << 20

// saveExamples writes each example's scenario as DIR/chaos-SEED.json.
func saveExamples(dir string, examples []engine.ChaosExample) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, ex := range examples {
		b, err := json.MarshalIndent(ex.Scenario, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("chaos-%d.json", ex.Seed)), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeChaosText prints the report for a person: the rates, the kinds,
// the linearizability verdicts and each example with how to rerun it.
func writeChaosText(w io.Writer, rep engine.ChaosReport, save string) {
	pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(rep.Runs)) }
	fmt.Fprintf(w, "%d runs on %s with %d node(s), fencing %s, seeds %d to %d\n", rep.Runs, rep.Backend, rep.Nodes,
		onOff(rep.Fencing), rep.Seed, rep.Seed+int64(rep.Runs)-1)
	if rep.LoseDisk {
		fmt.Fprintln(w, "lose_disk faults allowed: a node may lose its log and its vote")
	}
	fmt.Fprintf(w, "violations: %d (%s)\n", rep.Violations, pct(rep.Violations))
	k := rep.ByKind
	fmt.Fprintf(w, "  stale write %d, lost update %d, double grant %d, duplicate token %d, duplicate side effect %d\n",
		k.StaleWrite, k.LostUpdate, k.DoubleGrant, k.DuplicateToken, k.DuplicateSideEffect)
	l := rep.Linearizability
	fmt.Fprintf(w, "misconfigured (still violate with every fault removed; not counted above): %d (%s)\n", rep.Misconfigured, pct(rep.Misconfigured))
	fmt.Fprintf(w, "lock histories: %d linearizable, %d not linearizable (%d of them legal by the nodes' own clocks, %d with a grant, release or renewals the lock service forgot, %d with two primaries granting at once), %d undecided (the check ran out of time)\n",
		l.OK, l.Illegal, rep.IllegalByClock, rep.IllegalForgotten, rep.IllegalSplitBrain, l.Unknown)
	fmt.Fprintf(w, "runs in which no fault struck: %d (%s)\n", rep.RunsWithoutFaults, pct(rep.RunsWithoutFaults))
	for _, ex := range rep.Examples {
		fmt.Fprintf(w, "\nseed %d: %s [%s]\n  shrunk to %d client(s) and %d fault(s); %s\n", ex.Seed, ex.Why, strings.Join(ex.Kinds, ", "),
			len(ex.Scenario.Clients), len(ex.Scenario.Faults), engine.Verdict(ex.Summary))
		if ex.ClockNote != "" {
			fmt.Fprintf(w, "  lock history not linearizable by true time; %s\n", ex.ClockNote)
		}
		for _, a := range ex.Aims {
			fmt.Fprintf(w, "  aimed: %s\n", a)
		}
		if save != "" {
			fmt.Fprintf(w, "  rerun: playground run --config %s\n", filepath.Join(save, fmt.Sprintf("chaos-%d.json", ex.Seed)))
		} else {
			disk := ""
			if rep.LoseDisk {
				disk = " --lose-disk"
			}
			fmt.Fprintf(w, "  rerun: playground chaos --runs 1 --seed %d --backend %s --nodes %d --fencing %s%s --save DIR\n",
				ex.Seed, rep.Backend, rep.Nodes, onOff(rep.Fencing), disk)
		}
	}
}
