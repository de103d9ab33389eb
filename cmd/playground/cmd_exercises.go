package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/leaselab/playground/lessons"
)

// verifyVariants and verifyEngineVariants are how many variants of each
// exercise `exercises --verify` draws. A named mistake can equal the
// answer on a few variants only (a rate of 1 makes lag / rate right), so
// every kind is checked on a few hundred. A variant whose numbers and
// order of options an earlier one had is not graded again, which keeps
// the kinds that run the engine affordable.
const (
	verifyVariants       = 300
	verifyEngineVariants = 200
)

// lessonsFlag adds --lessons to a subcommand: a folder of lessons and
// exercises that replaces the embedded ones, defaulting to
// PLAYGROUND_LESSONS.
func lessonsFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	return fs.String("lessons", getenv("PLAYGROUND_LESSONS"), "load lessons and exercises from `DIR` instead of the embedded ones (env PLAYGROUND_LESSONS)")
}

// openCatalog loads the catalog; a broken lesson folder is bad input, and
// its error names the file and line.
func openCatalog(dir string) (*lessons.Catalog, error) {
	c, err := lessons.Open(dir)
	if err != nil {
		return nil, &usageError{err}
	}
	return c, nil
}

// exercisesCmd lists the exercises, or with --verify checks every exercise
// against its own answers.
func exercisesCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("exercises", flag.ContinueOnError)
	format := fs.String("format", "text", "output format: text or json")
	verify := fs.Bool("verify", false, "check that every exercise's own answer passes, its named wrong answers fail, and every embedded preset exists")
	dir := lessonsFlag(fs, getenv)
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usagef("--format: must be text or json, not %q", *format)
	}
	c, err := openCatalog(*dir)
	if err != nil {
		return err
	}
	if *verify {
		rep := c.Verify(ctx, verifyVariants, verifyEngineVariants)
		if *format == "json" {
			if err := writeJSON(stdout, rep); err != nil {
				return err
			}
		} else {
			for _, p := range rep.Problems {
				fmt.Fprintln(stdout, "FAIL", p)
			}
			fmt.Fprintf(stdout, "%d exercises, at least %d variants each (%d with numbers or an order of their own), %d answers checked, %d problems\n", rep.Exercises, rep.Variants, rep.Distinct, rep.Checks, len(rep.Problems))
		}
		if !rep.OK() {
			return errors.New("exercises --verify found problems")
		}
		return nil
	}
	type entry struct {
		ID     string `json:"id"`
		Kind   string `json:"kind"`
		Title  string `json:"title"`
		Lesson string `json:"lesson"`
	}
	var out []entry
	for _, ex := range c.Exercises() {
		out = append(out, entry{ex.ID, ex.Kind, ex.Title, ex.Lesson})
	}
	if *format == "json" {
		return writeJSON(stdout, out)
	}
	lesson := ""
	for _, e := range out {
		if e.Lesson != lesson {
			l, _ := c.Lesson(e.Lesson)
			fmt.Fprintf(stdout, "\n%s\n", l.Title)
			lesson = e.Lesson
		}
		fmt.Fprintf(stdout, "  %-26s %-9s %s\n", e.ID, e.Kind, e.Title)
	}
	return nil
}
