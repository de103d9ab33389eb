package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// checkCmd grades one answer to one exercise and prints the verdict. A
// wrong answer is a result, not an error: it exits 0 whenever the answer
// was graded.
func checkCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	id := fs.String("exercise", "", "the exercise `ID` (see 'playground exercises')")
	answer := fs.String("answer", "", "the answer, as you would type it (\"50 runs\", \"Rs 42,000\", b, a JSON object of settings)")
	variant := fs.Int("variant", 0, "the variant: 0 is the notes' own numbers")
	tries := fs.Int("tries", 0, "wrong tries so far (unlocks hints)")
	solution := fs.Bool("solution", false, "print the exercise for the variant and its worked solution instead of grading an answer")
	format := fs.String("format", "text", "output format: text or json")
	dir := lessonsFlag(fs, getenv)
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	if *id == "" {
		return usagef("check: give --exercise ID (see 'playground exercises')")
	}
	if *format != "text" && *format != "json" {
		return usagef("--format: must be text or json, not %q", *format)
	}
	c, err := openCatalog(*dir)
	if err != nil {
		return err
	}
	if *solution {
		return printSolution(stdout, c, *id, *variant, *format)
	}
	res, err := c.CheckAttempt(ctx, lessons.Attempt{Exercise: *id, Answer: *answer, Variant: *variant, Tries: *tries})
	var inputErr *lessons.InputError
	switch {
	case errors.Is(err, lessons.ErrUnknown), errors.As(err, &inputErr):
		return &usageError{err}
	case err != nil:
		return err
	}
	if *format == "json" {
		return writeJSON(stdout, res)
	}
	return writeResult(stdout, res)
}

// printSolution shows an exercise's prompt and worked solution: the
// solution "on request".
func printSolution(w io.Writer, c *lessons.Catalog, id string, variant int, format string) error {
	ex, err := c.Exercise(id)
	if err != nil {
		return &usageError{err}
	}
	p, err := ex.Serve(variant, lessons.Standing{})
	if err != nil {
		return &usageError{err}
	}
	md, _, err := ex.Solution(variant)
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(w, struct {
			Prompt   lessons.Served `json:"prompt"`
			Solution string         `json:"solution"`
		}{p, md})
	}
	fmt.Fprintf(w, "%s\n\n%s\n\nSolution:\n%s\n", p.Title, strings.TrimSpace(p.PromptText), strings.TrimSpace(md))
	return nil
}

// writeResult prints a verdict for a person: the feedback first, then what
// helps next (hints, the solution, the timeline of the run).
func writeResult(w io.Writer, r lessons.Result) error {
	switch {
	case r.FormatError != "":
		fmt.Fprintln(w, "UNREADABLE (costs no try):", r.FormatError)
	case r.Submitted:
		fmt.Fprintln(w, "SUBMITTED:", r.Feedback)
	case r.Correct:
		fmt.Fprintln(w, "CORRECT:", r.Feedback)
	default:
		fmt.Fprintln(w, "NOT YET:", r.Feedback)
	}
	for _, h := range r.Hints {
		fmt.Fprintln(w, "hint:", h)
	}
	if r.ModelAnswer != "" {
		fmt.Fprintf(w, "\nModel answer:\n%s\nRubric:\n", strings.TrimSpace(r.ModelAnswer))
		for _, p := range r.Rubric {
			fmt.Fprintf(w, " - %s\n", p.Point)
		}
	}
	for _, run := range r.Runs {
		status := "pass"
		if !run.Passed {
			status = "FAIL"
		}
		fmt.Fprintf(w, "run %-28s seed %d: %s\n", run.Name, run.Seed, status)
	}
	if r.Timeline != nil {
		fmt.Fprintf(w, "\nTimeline (%s):\n", r.Timeline.Name)
		for _, e := range r.Timeline.Events {
			fmt.Fprintf(w, "%9s  %-10s %s\n", engine.FormatMS(e.T), e.Actor, engine.Describe(e))
		}
		fmt.Fprintln(w, r.Timeline.Verdict)
	}
	if r.Solution != "" {
		fmt.Fprintf(w, "\nSolution:\n%s\n", strings.TrimSpace(r.Solution))
	}
	return nil
}
