// Command playground serves the distributed-locks playground and runs its
// scenarios from the command line.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(os.Stderr, "playground:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
}
