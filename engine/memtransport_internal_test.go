package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// answer serves n messages at t: each append is answered with its own
// previous log index as the term, so that answers can be told apart.
func answer(t *memTransport, n int) {
	for range n {
		rpc := <-t.Consumer()
		args := rpc.Command.(*raft.AppendEntriesRequest)
		rpc.Respond(&raft.AppendEntriesResponse{Term: args.PrevLogEntry, Success: true}, nil)
	}
}

// TestMemTransportCallEndsWhenThePeerCloses: with no timer per message, a
// sender waiting on a peer that stopped reading is released when the
// peer's transport closes (Raft closes it as its node shuts down), with
// errTransportClosed, and a peer that was never linked is refused at once.
func TestMemTransportCallEndsWhenThePeerCloses(t *testing.T) {
	a, b := newMemTransport("a"), newMemTransport("b")
	var resp raft.AppendEntriesResponse
	a.Connect("b", b)
	got := make(chan error, 1)
	go func() { got <- a.AppendEntries("b", "b", &raft.AppendEntriesRequest{}, &resp) }()
	<-b.Consumer() // delivered, never answered: b's node stopped
	b.Close()
	if err := <-got; !errors.Is(err, errTransportClosed) {
		t.Fatalf("the sender got %v, want errTransportClosed", err)
	}
	// Delivered and answered: the answer is copied back.
	c := newMemTransport("c")
	a.Connect("c", c)
	go answer(c, 1)
	if err := a.AppendEntries("c", "c", &raft.AppendEntriesRequest{PrevLogEntry: 7}, &resp); err != nil || resp.Term != 7 || !resp.Success {
		t.Fatalf("answer %+v, error %v", resp, err)
	}
	// A message over a cut link is held until the link is joined again,
	// then delivered; a pipeline is refused: Raft replicates one append at
	// a time.
	a.Disconnect("c")
	held := make(chan error, 1)
	go func() { held <- a.AppendEntries("c", "c", &raft.AppendEntriesRequest{PrevLogEntry: 9}, &resp) }()
	select {
	case err := <-held:
		t.Fatalf("a message over a cut link came back at once: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	go answer(c, 1)
	a.Connect("c", c)
	if err := <-held; err != nil || resp.Term != 9 {
		t.Fatalf("the held message, once the link was joined: answer %+v, error %v", resp, err)
	}
	// A message held for a link ends when the sender's transport closes
	// (its node shuts down).
	a.Disconnect("c")
	go func() { held <- a.AppendEntries("c", "c", &raft.AppendEntriesRequest{}, &resp) }()
	a.Close()
	if err := <-held; !errors.Is(err, errTransportClosed) {
		t.Fatalf("a held message when its sender closed: %v, want errTransportClosed", err)
	}
	if _, err := a.AppendEntriesPipeline("b", "b"); !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		t.Fatalf("a pipeline was offered: %v", err)
	}
}
