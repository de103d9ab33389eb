package main

import (
	"context"
	"fmt"
	"io"
)

// serveCmd will serve the web playground; until the web server exists it
// explains what the command line can do.
func serveCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fmt.Fprint(stdout, usage)
	fmt.Fprintln(stdout, "\nThe web playground is not part of this build yet; the run and presets commands work.")
	return nil
}
