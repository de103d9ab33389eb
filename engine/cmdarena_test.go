package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestArenaBuffersAreTheCommandsAlone: commands encoded from many
// goroutines at once, short ones from shared blocks and long ones on their
// own, each decode to the command that was encoded, in a buffer of its
// exact size: writing a buffer to its capacity changes no other command
// (the log keeps every buffer, shared by every node, until compaction).
func TestArenaBuffersAreTheCommandsAlone(t *testing.T) {
	var a cmdArena
	const goroutines, each = 8, 2000
	bufs := make([][][]byte, goroutines)
	cmds := func(g, i int) Command {
		c := Command{Op: OpAcquire, Lock: fmt.Sprint("lock-", g), Client: fmt.Sprint("client-", g, "-", i),
			Token: int64(i) << (i % 40), Lease: 10000, Now: int64(i), ReqID: uint64(i + 1)}
		if i%97 == 0 { // too long to share a block
			c.Lock = strings.Repeat("x", 300)
		}
		return c
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				bufs[g] = append(bufs[g], a.encode(cmds(g, i)))
			}
		})
	}
	wg.Wait()
	for g := range goroutines {
		for i, b := range bufs[g] {
			if len(b) != cap(b) {
				t.Fatalf("goroutine %d command %d: %d bytes in a buffer of %d", g, i, len(b), cap(b))
			}
			if got, err := DecodeCommand(b); err != nil || got != cmds(g, i) {
				t.Fatalf("goroutine %d command %d decodes to %+v, %v", g, i, got, err)
			}
			if g%2 == 0 {
				b = append(b[:0], make([]byte, cap(b))...) // overwrite it whole
			}
		}
	}
	for g := 1; g < goroutines; g += 2 {
		for i, b := range bufs[g] {
			if got, err := DecodeCommand(b); err != nil || got != cmds(g, i) {
				t.Fatalf("after its neighbours were overwritten, goroutine %d command %d decodes to %+v, %v", g, i, got, err)
			}
		}
	}
	if a.size != cmdBlockMax {
		t.Errorf("after %d commands the blocks are %d bytes, want them grown to %d", goroutines*each, a.size, cmdBlockMax)
	}
}

// TestARunsFirstBlockIsSmall: a run's group commits a few dozen commands;
// its first block is cmdBlockMin, not the largest.
func TestARunsFirstBlockIsSmall(t *testing.T) {
	var a cmdArena
	b := a.encode(Command{Op: OpAcquire, Lock: "account", Client: "client-1", Lease: 10000, ReqID: 1})
	if a.size != cmdBlockMin || len(a.free) != cmdBlockMin-len(b) {
		t.Errorf("after one command: block of %d, %d bytes free; want %d and %d", a.size, len(a.free), cmdBlockMin, cmdBlockMin-len(b))
	}
}
