package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/classroom/store"
)

const classesUsage = `usage: playground classes [--data FOLDER] list | delete CODE | archive CODE

  list          every class: code, name, learners, status, made, from which address
  delete CODE   delete the class now, with its learners and their answers
  archive CODE  archive the class as its teacher would (no more joins or answers;
                deleted after the grace period, its teacher may still export or restore it)

The store is the one serve uses: PostgreSQL when DATABASE_URL is set, else the
SQLite file in --data. It works beside a running server; a dashboard open on a
deleted or archived class learns of it when it next reloads.
`

// classesCmd is the operator's hand on the classes of a server's store.
func classesCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("classes", flag.ContinueOnError)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	dataDir := fs.String("data", env("PLAYGROUND_DATA", store.DefaultDataDir), "`folder` of the classroom's SQLite file (env PLAYGROUND_DATA; unused with DATABASE_URL)")
	fs.Usage = func() { fmt.Fprint(stderr, classesUsage); fs.PrintDefaults() }
	// The action and its code follow the flags.
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &usageError{err}
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return usagef("classes: say list, delete CODE or archive CODE")
	}
	verb, rest := rest[0], rest[1:]
	want := 1
	if verb == "list" {
		want = 0
	}
	switch verb {
	case "list", "delete", "archive":
	default:
		fs.Usage()
		return usagef("classes: unknown action %q: use list, delete CODE or archive CODE", verb)
	}
	if len(rest) != want {
		return usagef("classes %s: takes %d argument(s), not %d", verb, want, len(rest))
	}
	op, closeStore, err := openOperator(ctx, getenv("DATABASE_URL"), *dataDir)
	if err != nil {
		return err
	}
	defer closeStore()
	switch verb {
	case "list":
		return listClasses(ctx, op, stdout)
	case "delete":
		if err := op.DeleteClass(ctx, rest[0]); err != nil {
			return operatorError(err)
		}
		fmt.Fprintf(stdout, "deleted class %s\n", classroom.NormalizeCode(rest[0]))
	case "archive":
		c, err := op.ArchiveClass(ctx, rest[0])
		if err != nil {
			return operatorError(err)
		}
		fmt.Fprintf(stdout, "archived class %s (%s); it is deleted on %s\n", c.Code, c.Name, c.DeleteAt.UTC().Format("2 January 2006"))
	}
	return nil
}

// openOperator opens the store serve would. A SQLite file is opened
// without the data folder's lock, which a running server holds: SQLite
// itself lets the two share the file, and the command changes rows only.
func openOperator(ctx context.Context, databaseURL, dataDir string) (classroom.Operator, func(), error) {
	if databaseURL != "" {
		if !strings.HasPrefix(databaseURL, "postgres://") && !strings.HasPrefix(databaseURL, "postgresql://") {
			return nil, nil, usagef("DATABASE_URL: must start with postgres:// (leave it empty for the SQLite file in --data)")
		}
		st, err := postgres.Open(ctx, databaseURL, classroom.Options{PurgeEvery: -1})
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	path := filepath.Join(dataDir, sqlite.FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, nil, usagef("--data: no classroom database in %s (%v)", dataDir, err)
	}
	st, err := sqlite.OpenFile(ctx, path, classroom.Options{PurgeEvery: -1})
	if err != nil {
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

func listClasses(ctx context.Context, op classroom.Operator, stdout io.Writer) error {
	list, err := op.ListClasses(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tNAME\tLEARNERS\tSTATUS\tMADE\tFROM")
	for _, c := range list {
		from := c.Creator
		if from == "" {
			from = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", c.Code, c.Name, c.Learners, c.Status(now), c.CreatedAt.UTC().Format("2006-01-02 15:04"), from)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d classes\n", len(list))
	return nil
}

// operatorError says an unknown code in the command's words.
func operatorError(err error) error {
	var ce *classroom.Error
	if errors.As(err, &ce) && ce.Code == classroom.ENOTFOUND {
		return usagef("%s", classroom.ErrorMessage(err))
	}
	return err
}
