package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/leaselab/playground/engine"
)

// chaosCmd runs randomized fault schedules and reports the unsafe ones,
// each shrunk to the smallest scenario that still fails.
func chaosCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	runs := fs.Int("runs", 100, "how many random scenarios to run")
	seed := fs.Int64("seed", 1, "the first seed; run i uses seed+i")
	backend := fs.String("backend", "raft", "lock backend: raft, single, async-replica or redlock")
	nodes := fs.Int("nodes", 0, "lock nodes (the backend's default when 0)")
	fencing := fs.String("fencing", "on", "fencing: on or off (always off for redlock)")
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
	opt := engine.ChaosOptions{Runs: *runs, Seed: *seed, Backend: *backend, Nodes: *nodes,
		Fencing: *fencing == "on" && *backend != engine.BackendRedlock}
	rep, err := engine.Chaos(ctx, opt)
	if err != nil {
		var fe *engine.FieldError
		if asField(err, &fe) {
			return &usageError{fmt.Errorf("--%s", err)}
		}
		return err
	}
	if *save != "" {
		if err := os.MkdirAll(*save, 0o755); err != nil {
			return err
		}
		for _, ex := range rep.Examples {
			b, err := json.MarshalIndent(ex.Scenario, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(*save, fmt.Sprintf("chaos-%d.json", ex.Seed)), append(b, '\n'), 0o644); err != nil {
				return err
			}
		}
	}
	if *format == "json" {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%d runs on %s (fencing %s): %d violations, %d non-linearizable lock histories\n",
		rep.Runs, *backend, onOff(opt.Fencing), rep.Violations, rep.NotLinearizable)
	for _, ex := range rep.Examples {
		fmt.Fprintf(stdout, "\nseed %d: %s\n  shrunk to %d client(s) and %d fault(s); %s\n", ex.Seed, ex.Why,
			len(ex.Scenario.Clients), len(ex.Scenario.Faults), engine.Verdict(ex.Summary))
		if *save != "" {
			fmt.Fprintf(stdout, "  rerun: playground run --config %s\n", filepath.Join(*save, fmt.Sprintf("chaos-%d.json", ex.Seed)))
		} else {
			fmt.Fprintf(stdout, "  rerun: playground chaos --runs 1 --seed %d --backend %s --fencing %s --save DIR\n", ex.Seed, *backend, onOff(opt.Fencing))
		}
	}
	return nil
}
