// Package etcdbench compares the engine's Raft lock group with an embedded
// etcd running the same lock operations in the same process. It is a
// module of its own so that neither the playground binary nor the main
// module's tests pull etcd in; it has no code besides its benchmark.
//
// Rerun (from this directory):
//
//	go test -run '^$' -bench . -benchtime 50000x -count 3
package etcdbench
