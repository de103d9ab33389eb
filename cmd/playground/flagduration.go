package main

import (
	"flag"
	"fmt"
	"time"
)

// durationVar defines a duration flag that, given something other than a
// duration, says how to write one: the flag package's own duration flags
// answer only "parse error".
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	usage += " (a `duration` like 30s or 1m30s"
	if def != 0 {
		usage += "; default " + def.String()
	}
	fs.Func(name, usage+")", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration: write it like 30s, 500ms or 1m30s", s)
		}
		*p = d
		return nil
	})
}

// duration is durationVar for a flag read through the pointer it returns.
func duration(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	durationVar(fs, p, name, def, usage)
	return p
}
