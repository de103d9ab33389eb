package engine

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// memTransport connects the Raft nodes of one group in memory, as
// hashicorp/raft's InmemTransport does, with one difference: no timer per
// message. InmemTransport arms a timer for every message it sends and
// every answer it waits for (500 ms), so that a sender is not stuck with a
// peer that stopped reading; in a chaos batch those timers were a tenth of
// everything allocated, and the runtime's timer heap was busy with them.
// Here a sender waits for the answer, or for the peer's transport to
// close, which Raft does when the peer shuts down (a crashed node, a
// group's end), or for its own to close. A peer that runs but is slow is
// waited for, as a peer on a network with long timeouts would be; Raft's
// own timers (the leader's lease, elections) still notice a follower that
// does not answer in time.
//
// Links are one-way and set with Connect and Disconnect, as with
// InmemTransport; a message already delivered is answered even if the
// link is cut afterwards (it was on the wire).
type memTransport struct {
	addr     raft.ServerAddress
	consumer chan raft.RPC

	mu        sync.RWMutex
	peers     map[raft.ServerAddress]*memTransport
	pipelines []*memPipeline
	closed    chan struct{} // closed by Close: nothing more is read or answered here
	isClosed  bool
}

// errTransportClosed is the answer to a message to or from a transport
// that closed.
var errTransportClosed = errors.New("raft transport closed")

// newMemTransport makes a transport with the given address.
func newMemTransport(addr raft.ServerAddress) *memTransport {
	return &memTransport{addr: addr, consumer: make(chan raft.RPC, 16),
		peers: map[raft.ServerAddress]*memTransport{}, closed: make(chan struct{})}
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
}

// Disconnect cuts the link to a peer and closes the pipelines to it.
func (t *memTransport) Disconnect(addr raft.ServerAddress) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.peers, addr)
	kept := t.pipelines[:0]
	for _, p := range t.pipelines {
		if p.peerAddr == addr {
			p.Close()
			continue
		}
		kept = append(kept, p)
	}
	clear(t.pipelines[len(kept):])
	t.pipelines = kept
}

// DisconnectAll cuts every link.
func (t *memTransport) DisconnectAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.peers)
	for _, p := range t.pipelines {
		p.Close()
	}
	t.pipelines = nil
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

func (t *memTransport) peer(addr raft.ServerAddress) (*memTransport, error) {
	t.mu.RLock()
	p, ok := t.peers[addr]
	t.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("failed to connect to peer: %v", addr)
	}
	return p, nil
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

// AppendEntriesPipeline implements raft.Transport: appends sent one after
// the other without waiting, their answers handed back in order.
func (t *memTransport) AppendEntriesPipeline(_ raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	peer, ok := t.peers[target]
	if !ok {
		return nil, fmt.Errorf("failed to connect to peer: %v", target)
	}
	p := &memPipeline{trans: t, peer: peer, peerAddr: target,
		inflight: make(chan *memAppend, 16), done: make(chan raft.AppendFuture, 16), shutdown: make(chan struct{})}
	go p.answers()
	t.pipelines = append(t.pipelines, p)
	return p, nil
}

// memPipeline is one leader-to-follower pipeline of appends.
type memPipeline struct {
	trans, peer *memTransport
	peerAddr    raft.ServerAddress
	inflight    chan *memAppend        // sent, answer awaited, in order
	done        chan raft.AppendFuture // answered, in order
	once        sync.Once
	shutdown    chan struct{}
}

// memAppend is one append in a pipeline and, once answered, its outcome
// (raft.AppendFuture). Raft reads it only after it came out of the
// pipeline's consumer, so its fields need no lock.
type memAppend struct {
	start  time.Time
	args   *raft.AppendEntriesRequest
	resp   *raft.AppendEntriesResponse
	answer chan raft.RPCResponse
	err    error
}

func (a *memAppend) Error() error                          { return a.err }
func (a *memAppend) Start() time.Time                      { return a.start }
func (a *memAppend) Request() *raft.AppendEntriesRequest   { return a.args }
func (a *memAppend) Response() *raft.AppendEntriesResponse { return a.resp }

// AppendEntries implements raft.AppendPipeline.
func (p *memPipeline) AppendEntries(args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) (raft.AppendFuture, error) {
	select {
	case <-p.shutdown:
		return nil, raft.ErrPipelineShutdown
	default:
	}
	a := &memAppend{start: time.Now(), args: args, resp: resp, answer: make(chan raft.RPCResponse, 1)}
	select {
	case p.peer.consumer <- raft.RPC{Command: args, RespChan: a.answer}:
	case <-p.peer.closed:
		return nil, errTransportClosed
	case <-p.trans.closed:
		return nil, errTransportClosed
	case <-p.shutdown:
		return nil, raft.ErrPipelineShutdown
	}
	select {
	case p.inflight <- a:
		return a, nil
	case <-p.shutdown:
		return nil, raft.ErrPipelineShutdown
	}
}

// answers hands the appends' answers back in the order they were sent.
func (p *memPipeline) answers() {
	for {
		var a *memAppend
		select {
		case a = <-p.inflight:
		case <-p.shutdown:
			return
		}
		select {
		case r := <-a.answer:
			if r.Error != nil {
				a.err = r.Error
			} else {
				*a.resp = *r.Response.(*raft.AppendEntriesResponse)
			}
		case <-p.peer.closed:
			a.err = errTransportClosed
		case <-p.trans.closed:
			a.err = errTransportClosed
		case <-p.shutdown:
			return
		}
		select {
		case p.done <- a:
		case <-p.shutdown:
			return
		}
	}
}

// Consumer implements raft.AppendPipeline.
func (p *memPipeline) Consumer() <-chan raft.AppendFuture { return p.done }

// Close implements raft.AppendPipeline.
func (p *memPipeline) Close() error {
	p.once.Do(func() { close(p.shutdown) })
	return nil
}
