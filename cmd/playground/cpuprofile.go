package main

import (
	"os"
	"runtime/pprof"
)

// startCPUProfile profiles the process's CPU into path until stop is
// called: where a server's time goes under a load test, in proportions
// that hold on a busy machine when absolute times do not.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
