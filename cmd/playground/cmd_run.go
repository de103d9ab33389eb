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
	"time"

	"github.com/leaselab/playground/engine"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// runCmd runs one scenario as fast as possible and prints its timeline. An
// unsafe outcome is a result, not an error: it exits 0 whenever the
// simulation ran.
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	preset := fs.String("preset", "", "run the preset `NAME` (see 'playground presets')")
	config := fs.String("config", "", "run the scenario in `FILE` (JSON or YAML; - for standard input)")
	fencing := fs.String("fencing", "", "override fencing: on or off")
	format := fs.String("format", "text", "output format: text or json")
	history := fs.String("history", "", "write the run's lock operations to `FILE` for a linearizability check: .html (porcupine's visualisation) or .json")
	var sets multiFlag
	fs.Var(&sets, "set", "override a field, as `path=value` (lock.lease=20s, clients[1].renew_every=1s); repeatable")
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	sc, err := loadScenario(*preset, *config)
	if err != nil {
		return err
	}
	switch *fencing {
	case "":
	case "on":
		sc.Fencing = true
	case "off":
		sc.Fencing = false
	default:
		return usagef("--fencing: must be on or off, not %q", *fencing)
	}
	for _, s := range sets {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return usagef("--set %q: write it as path=value, like lock.lease=20s", s)
		}
		if sc, err = engine.SetField(sc, path, value); err != nil {
			return &usageError{err}
		}
	}
	if *format != "text" && *format != "json" {
		return usagef("--format: must be text or json, not %q", *format)
	}
	if ext := filepath.Ext(*history); *history != "" && ext != ".html" && ext != ".json" {
		return usagef("--history: the file must end in .html or .json, not %q", ext)
	}
	prepared, err := engine.Prepare(sc)
	if err != nil {
		return &usageError{err}
	}
	res, err := engine.Execute(ctx, prepared)
	if err != nil {
		return err
	}
	if *history != "" {
		if err := writeHistory(*history, res.History(), stderr); err != nil {
			return err
		}
	}
	if *format == "json" {
		return writeJSON(stdout, runJSON{Result: res, Heading: engine.HeadingOf(sc, res.Events, res.Summary, false)})
	}
	return writeTimeline(stdout, sc, res)
}

// loadScenario reads the scenario named by --preset or --config.
func loadScenario(preset, config string) (engine.Scenario, error) {
	switch {
	case preset != "" && config != "":
		return engine.Scenario{}, usagef("run: give --preset or --config, not both")
	case preset != "":
		p, err := engine.LoadPreset(preset)
		if err != nil {
			return engine.Scenario{}, &usageError{err}
		}
		return p.Scenario, nil
	case config != "":
		var data []byte
		var err error
		if config == "-" {
			data, err = io.ReadAll(io.LimitReader(os.Stdin, engine.MaxScenarioSize+1))
		} else {
			data, err = readLimited(config, engine.MaxScenarioSize+1)
		}
		if err != nil {
			return engine.Scenario{}, usagef("--config: %v", err)
		}
		sc, err := engine.DecodeScenario(data)
		if err != nil {
			return engine.Scenario{}, usagef("%s: %w", config, err)
		}
		return sc, nil
	}
	return engine.Scenario{}, usagef("run: give --preset NAME or --config FILE")
}

func readLimited(name string, n int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// writeJSON prints v as indented JSON, without HTML escaping (SQL keeps its
// "<=").
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTimeline prints one line an event and a verdict line.
func writeTimeline(w io.Writer, sc engine.Scenario, res *engine.Result) error {
	if sc.Title != "" {
		fmt.Fprintf(w, "%s (fencing %s)\n\n", sc.Title, onOff(sc.Fencing))
	}
	for _, e := range res.Events {
		fmt.Fprintf(w, "%9s  %-10s %s\n", engine.FormatMS(e.T), e.Actor, engine.Describe(e))
	}
	s := res.Summary
	fmt.Fprintf(w, "\nfinal %d, expected %d; writes accepted %d, refused %d, stale accepted %d; overlap %s; double grants %d; duplicate tokens %d\n",
		s.FinalValue, s.ExpectedValue, s.WritesAccepted, s.WritesRefused, s.StaleWritesAccepted, engine.FormatMS(s.OverlapMS), s.DoubleGrants, s.DuplicateTokens)
	_, err := fmt.Fprintln(w, verdictLine(engine.HeadingOf(sc, res.Events, s, false), s))
	return err
}

// runJSON is a run as --format json prints it: the events and summary,
// and the heading the web page gives it.
type runJSON struct {
	*engine.Result
	Heading engine.Heading `json:"heading"`
}

// verdictLine is the run's verdict as one line: the engine's, except
// that a run whose data came out right but whose work was not done is
// headed by that, as the web page heads it ("UNAVAILABLE for 36s: no
// write happened; ..."), never by a bare "SAFE".
func verdictLine(h engine.Heading, s engine.Summary) string {
	v := engine.Verdict(s)
	switch h.Kind {
	case engine.HeadUnavailable, engine.HeadIncomplete:
		_, checks, _ := strings.Cut(v, ": ")
		// The first word in capitals, as the engine's verdicts are; the
		// rest as it is ("UNAVAILABLE for 36s").
		first, rest, _ := strings.Cut(h.Title, " ")
		title := strings.TrimSpace(strings.ToUpper(first) + " " + rest)
		return title + ": " + h.Detail + "; checked: " + checks
	}
	return v
}

// writeHistory saves a run's lock operations and says whether they are
// linearizable against the lease-lock model.
func writeHistory(name string, h *engine.History, stderr io.Writer) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if filepath.Ext(name) == ".html" {
		err = h.WriteHTML(f, 10*time.Second)
	} else {
		err = json.NewEncoder(f).Encode(h)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--history: %w", err)
	}
	if h.Len() == 0 {
		fmt.Fprintf(stderr, "lock history: no lock operations, nothing to check; written to %s\n", name)
		return nil
	}
	verdict := map[engine.Linearizability]string{
		engine.LinearizableOK:      "linearizable",
		engine.LinearizableIllegal: "NOT linearizable",
		engine.LinearizableUnknown: "not decided: the check ran out of time",
	}[h.Check(10*time.Second)]
	if note := h.ClockNote(10 * time.Second); note != "" {
		verdict += " by true time (" + note + ")"
	}
	fmt.Fprintf(stderr, "lock history: %d operations, %s; written to %s\n", h.Len(), verdict, name)
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
