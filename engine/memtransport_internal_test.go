package engine

import (
	"errors"
	"testing"

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
	if err := a.AppendEntries("b", "b", &raft.AppendEntriesRequest{}, &resp); err == nil {
		t.Fatal("a message to a peer that is not linked was sent")
	}
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
}

// TestMemTransportPipelineKeepsOrder: appends sent down a pipeline
// without waiting come back out of its consumer in the order they were
// sent, each with its own answer; cutting the link shuts the pipeline.
func TestMemTransportPipelineKeepsOrder(t *testing.T) {
	a, b := newMemTransport("a"), newMemTransport("b")
	a.Connect("b", b)
	p, err := a.AppendEntriesPipeline("b", "b")
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	go answer(b, n)
	resps := make([]raft.AppendEntriesResponse, n)
	go func() {
		for i := range n {
			if _, err := p.AppendEntries(&raft.AppendEntriesRequest{PrevLogEntry: uint64(i)}, &resps[i]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range n {
		f := <-p.Consumer()
		if f.Error() != nil || f.Request().PrevLogEntry != uint64(i) || f.Response().Term != uint64(i) {
			t.Fatalf("append %d came back as request %d, answer %+v, error %v", i, f.Request().PrevLogEntry, *f.Response(), f.Error())
		}
	}
	a.Disconnect("b")
	if _, err := p.AppendEntries(&raft.AppendEntriesRequest{}, &raft.AppendEntriesResponse{}); !errors.Is(err, raft.ErrPipelineShutdown) {
		t.Fatalf("after the link was cut: %v, want raft.ErrPipelineShutdown", err)
	}
}
