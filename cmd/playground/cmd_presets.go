package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/leaselab/playground/engine"
)

// presetsCmd lists the presets: names, titles and the question each asks.
// The text listing keeps each preset's outcome (its watch text) out, as
// the pages do before a run; the JSON listing carries both.
func presetsCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("presets", flag.ContinueOnError)
	format := fs.String("format", "text", "output format: text or json")
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	presets := engine.Presets()
	switch *format {
	case "json":
		type entry struct {
			Name     string `json:"name"`
			Title    string `json:"title"`
			Question string `json:"question"`
			Watch    string `json:"watch"`
		}
		out := make([]entry, len(presets))
		for i, p := range presets {
			out[i] = entry{p.Name, p.Title, p.Question, p.Watch}
		}
		return writeJSON(stdout, out)
	case "text":
		for _, p := range presets {
			fmt.Fprintf(stdout, "%-18s %s\n%18s %s\n\n", p.Name, p.Title, "", p.Question)
		}
		return nil
	}
	return usagef("--format: must be text or json, not %q", *format)
}
