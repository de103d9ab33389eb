package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/leaselab/playground/engine"
)

// presetsCmd lists the presets: names, titles and what to watch.
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
			Name  string `json:"name"`
			Title string `json:"title"`
			Watch string `json:"watch"`
		}
		out := make([]entry, len(presets))
		for i, p := range presets {
			out[i] = entry{p.Name, p.Title, p.Watch}
		}
		return writeJSON(stdout, out)
	case "text":
		for _, p := range presets {
			fmt.Fprintf(stdout, "%-18s %s\n%18s %s\n\n", p.Name, p.Title, "", p.Watch)
		}
		return nil
	}
	return usagef("--format: must be text or json, not %q", *format)
}
