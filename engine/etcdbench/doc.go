// Package etcdbench compares the engine's Raft lock group with an embedded
// etcd running the same lock operations, each service in a process of its
// own, in one benchmark run. It is a module of its own so that neither the
// playground binary nor the main module's tests pull etcd in; it has no
// code besides its benchmark.
//
// Rerun (from this directory; 16 rounds of four half-second phases):
//
//	go test -run '^$' -bench . -benchtime 16x -count 3
//	go test -run '^$' -bench . -benchtime 16x -args -aa            # A/A: the harness's spread
//	go test -run '^$' -bench . -benchtime 16x -args -same-process  # one heap for all
package etcdbench
