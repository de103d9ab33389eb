package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/leaselab/playground/engine"
)

// usageError is bad input from the user: the command exits with status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

const usage = `playground: learn distributed locks, leases and fencing tokens by breaking them.

Usage:
  playground [serve] [flags]         serve the web playground
  playground run --preset NAME       run a preset and print its timeline
  playground run --config FILE       run a scenario file (JSON or YAML)
  playground presets                 list the presets
  playground chaos --runs N          random fault schedules, checked for safety
  playground exercises [--verify]    list the exercises, or check them against their own answers
  playground check --exercise ID --answer TEXT
                                     grade an answer to an exercise
  playground classes list | delete CODE | archive CODE
                                     the operator's view of the classes in the store
  playground loadtest [flags] [-- serve flags]
                                     play a class of 200 against a server on this machine
  playground lti add-platform|list|remove|rotate-key
                                     register LMS platforms (LTI 1.3), rotate the tool's key

Run "playground COMMAND -h" for a command's flags.
`

// run is the whole program: main only wires it to the process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serveCmd(ctx, args, getenv, stdout, stderr)
	case "run":
		return runCmd(ctx, args, stdout, stderr)
	case "presets":
		return presetsCmd(args, stdout, stderr)
	case "chaos":
		return chaosCmd(ctx, args, stdout, stderr)
	case "exercises":
		return exercisesCmd(ctx, args, getenv, stdout, stderr)
	case "check":
		return checkCmd(ctx, args, getenv, stdout, stderr)
	case "loadtest":
		return loadtestCmd(ctx, args, stdout, stderr)
	case "classes":
		return classesCmd(ctx, args, getenv, stdout, stderr)
	case "lti":
		return ltiCmd(ctx, args, getenv, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usagef("unknown command %q", cmd)
}

// asField reports whether err is a field-naming validation error.
func asField(err error, fe **engine.FieldError) bool { return errors.As(err, fe) }

// parseFlags parses a subcommand's flags; -h prints its help and succeeds.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (help bool, err error) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, &usageError{err}
	}
	if fs.NArg() > 0 {
		return false, usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return false, nil
}
