package engine

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// memTransport connects the Raft nodes of one group in memory, as
// hashicorp/raft's InmemTransport does, with three differences: no
// pipeline (AppendEntriesPipeline), no timer per message, and a message on
// a cut link is held until the link is joined again (peer).
//
// InmemTransport arms a timer for every message it sends and every answer
// it waits for (500 ms), so that a sender is not stuck with a peer that
// stopped reading; in a chaos batch those timers were a tenth of
// everything allocated, and the runtime's timer heap was busy with them.
// Here a sender waits for the answer, or for the peer's transport to
// close, which Raft does when the peer shuts down (a crashed node, a
// group's end), or for its own to close (stopNode closes it before
// Raft's shutdown). A peer that runs but is slow is waited for, as a peer
// on a network with long timeouts would be; Raft's own timers (the
// leader's lease, elections) still notice a follower that does not answer
// in time.
//
// Links are one-way and set with Connect and Disconnect, as with
// InmemTransport; a message already delivered is answered even if the
// link is cut afterwards (it was on the wire).
type memTransport struct {
	addr     raft.ServerAddress
	consumer chan raft.RPC

	mu       sync.RWMutex
	peers    map[raft.ServerAddress]*memTransport
	relinked chan struct{} // closed (and replaced) by every Connect: wakes the calls held for a link
	closed   chan struct{} // closed by Close: nothing more is read or answered here
	isClosed bool
}

// errTransportClosed is the answer to a message to or from a transport
// that closed.
var errTransportClosed = errors.New("raft transport closed")

// newMemTransport makes a transport with the given address.
func newMemTransport(addr raft.ServerAddress) *memTransport {
	return &memTransport{addr: addr, consumer: make(chan raft.RPC, 16),
		peers: map[raft.ServerAddress]*memTransport{}, relinked: make(chan struct{}), closed: make(chan struct{})}
}

// Consumer implements raft.Transport.
func (t *memTransport) Consumer() <-chan raft.RPC { return t.consumer }

// LocalAddr implements raft.Transport.
func (t *memTransport) LocalAddr() raft.ServerAddress { return t.addr }

// SetHeartbeatHandler implements raft.Transport: heartbeats come through
// the consumer like every other message, as with InmemTransport.
func (t *memTransport) SetHeartbeatHandler(func(raft.RPC)) {}

// EncodePeer implements raft.Transport.
func (t *memTransport) EncodePeer(_ raft.ServerID, addr raft.ServerAddress) []byte {
	return []byte(addr)
}

// DecodePeer implements raft.Transport.
func (t *memTransport) DecodePeer(b []byte) raft.ServerAddress { return raft.ServerAddress(b) }

// Connect links this transport to peer (one way).
func (t *memTransport) Connect(addr raft.ServerAddress, peer *memTransport) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.peers[addr] = peer
	close(t.relinked)
	t.relinked = make(chan struct{})
}

// Disconnect cuts the link to a peer.
func (t *memTransport) Disconnect(addr raft.ServerAddress) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.peers, addr)
}

// DisconnectAll cuts every link.
func (t *memTransport) DisconnectAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.peers)
}

// Close cuts every link and releases everyone waiting on this transport:
// senders waiting for its answers and its own senders. Raft calls it when
// its node has shut down (raft.WithClose). It is safe to call more than
// once.
func (t *memTransport) Close() error {
	t.DisconnectAll()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.isClosed {
		t.isClosed = true
		close(t.closed)
	}
	return nil
}

// peer returns the transport linked at addr. While the link is cut it
// waits for it to be joined again, or for this transport to close: a
// message on a cut link is held, as a network holds packets it cannot
// deliver yet, rather than refused. A refused append counts as a failure
// that makes Raft back off its replication to that follower for up to
// seconds of wall time, and a follower whose link was joined again would
// then catch up late, after the simulation counted on its log (catchUp).
func (t *memTransport) peer(addr raft.ServerAddress) (*memTransport, error) {
	for {
		t.mu.RLock()
		p, ok := t.peers[addr]
		relinked := t.relinked
		t.mu.RUnlock()
		if ok {
			return p, nil
		}
		select {
		case <-relinked:
		case <-t.closed:
			return nil, fmt.Errorf("failed to connect to peer %v: %w", addr, errTransportClosed)
		}
	}
}

// deliver puts a message in the peer's consumer, unless either side
// closes first.
func (t *memTransport) deliver(peer *memTransport, rpc raft.RPC) error {
	select {
	case peer.consumer <- rpc:
		return nil
	case <-peer.closed:
	case <-t.closed:
	}
	return errTransportClosed
}

// await waits for the peer's answer, unless either side closes first.
func (t *memTransport) await(peer *memTransport, answer <-chan raft.RPCResponse) (any, error) {
	select {
	case r := <-answer:
		return r.Response, r.Error
	case <-peer.closed:
	case <-t.closed:
	}
	return nil, errTransportClosed
}

// call sends one message and waits for its answer.
func (t *memTransport) call(target raft.ServerAddress, args any, data io.Reader) (any, error) {
	peer, err := t.peer(target)
	if err != nil {
		return nil, err
	}
	answer := make(chan raft.RPCResponse, 1)
	if err := t.deliver(peer, raft.RPC{Command: args, Reader: data, RespChan: answer}); err != nil {
		return nil, err
	}
	return t.await(peer, answer)
}

// AppendEntries implements raft.Transport.
func (t *memTransport) AppendEntries(_ raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	out, err := t.call(target, args, nil)
	if err != nil {
		return err
	}
	*resp = *out.(*raft.AppendEntriesResponse)
	return nil
}

// RequestVote implements raft.Transport.
func (t *memTransport) RequestVote(_ raft.ServerID, target raft.ServerAddress, args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	out, err := t.call(target, args, nil)
	if err != nil {
		return err
	}
	*resp = *out.(*raft.RequestVoteResponse)
	return nil
}

// RequestPreVote implements raft.WithPreVote.
func (t *memTransport) RequestPreVote(_ raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	out, err := t.call(target, args, nil)
	if err != nil {
		return err
	}
	*resp = *out.(*raft.RequestPreVoteResponse)
	return nil
}

// InstallSnapshot implements raft.Transport.
func (t *memTransport) InstallSnapshot(_ raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	out, err := t.call(target, args, data)
	if err != nil {
		return err
	}
	*resp = *out.(*raft.InstallSnapshotResponse)
	return nil
}

// TimeoutNow implements raft.Transport.
func (t *memTransport) TimeoutNow(_ raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	out, err := t.call(target, args, nil)
	if err != nil {
		return err
	}
	*resp = *out.(*raft.TimeoutNowResponse)
	return nil
}

// AppendEntriesPipeline implements raft.Transport by declining:
// hashicorp/raft then replicates to each follower one append at a time,
// from the follower's replication goroutine, and sends every entry that
// came in meanwhile with the next one. A run never has two commands in
// flight, so a pipeline would only add two goroutine hand-offs to every
// append (a reader of the answers and Raft's decoder of them); with many
// clients at once (LockGroup's benchmarks), the appends grow instead of
// queueing, which on the project's machine is faster too
// (docs/benchmarks.md, "Issue 23 now: the eighth pass").
func (t *memTransport) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported
}
