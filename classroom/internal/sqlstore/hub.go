package sqlstore

import (
	"context"
	"errors"
	"sync"

	"github.com/leaselab/playground/classroom"
)

// subBuffer is how many changes wait for a slow subscriber before more are
// dropped: a Change only says "reload", so a full buffer already holds
// one and dropping the rest loses nothing.
const subBuffer = 8

// Hub fans changes out to this process's subscribers.
type Hub struct {
	mu     sync.Mutex
	subs   map[int64]map[chan classroom.Change]struct{}
	closed bool
	done   chan struct{} // closed by Close, so no subscriber's goroutine outlives the hub
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{subs: map[int64]map[chan classroom.Change]struct{}{}, done: make(chan struct{})}
}

// Subscribe registers a subscriber to a class until ctx ends.
func (h *Hub) Subscribe(ctx context.Context, classID int64) (<-chan classroom.Change, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, classroom.Unavailable("follow the class", errors.New("the store is closed"))
	}
	ch := make(chan classroom.Change, subBuffer)
	if h.subs[classID] == nil {
		h.subs[classID] = map[chan classroom.Change]struct{}{}
	}
	h.subs[classID][ch] = struct{}{}
	go func() {
		select {
		case <-ctx.Done():
		case <-h.done:
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[classID][ch]; ok {
			delete(h.subs[classID], ch)
			if len(h.subs[classID]) == 0 {
				delete(h.subs, classID)
			}
			close(ch)
		}
	}()
	return ch, nil
}

// Publish hands c to the class's subscribers without ever blocking: a
// writer must not wait for a slow dashboard.
func (h *Hub) Publish(c classroom.Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[c.ClassID] {
		select {
		case ch <- c:
		default:
		}
	}
}

// PublishAll sends a change of this kind to every subscribed class: after
// a listener reconnects, changes may have been missed, so everyone
// reloads.
func (h *Hub) PublishAll(kind string) {
	h.mu.Lock()
	ids := make([]int64, 0, len(h.subs))
	for id := range h.subs {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		h.Publish(classroom.Change{ClassID: id, Kind: kind})
	}
}

// Close closes every subscriber's channel.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	for id, set := range h.subs {
		for ch := range set {
			close(ch)
		}
		delete(h.subs, id)
	}
}
