package web

import (
	"context"
	"sync"
)

// feedCore is what every shared class feed keeps beside its versions:
// its class, how to stop it, and how many streams follow it.
type feedCore struct {
	feedVersions
	classID int64
	cancel  context.CancelFunc
	streams int // guarded by the feedTable's lock
}

func (c *feedCore) core() *feedCore { return c }

// feedTable holds one feed per class with an open stream of one kind on
// this server (the teachers' dashboards, the learners' pages): the first
// stream of a class starts its feed, the last one out stops it, and a
// stream that comes while an ended feed's streams are on their way out
// gets a fresh one.
type feedTable[F interface{ core() *feedCore }] struct {
	s     *Server
	mu    sync.Mutex
	feeds map[int64]F
	// run follows the class for the feed until ctx ends (the last stream
	// left or the server stopped), publishing what its streams show.
	run func(ctx context.Context, f F)
}

func newFeedTable[F interface{ core() *feedCore }](s *Server, run func(ctx context.Context, f F)) feedTable[F] {
	return feedTable[F]{s: s, feeds: map[int64]F{}, run: run}
}

// join counts a new stream of the class. open makes the class's feed when
// none runs (its feedCore is filled in here); enter, under the table's lock, may refuse the stream (a cap)
// or count it further (per learner). A feed is started only for a stream
// it admits.
func (t *feedTable[F]) join(classID int64, open func() F, enter func(f F) error) (F, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.feeds[classID]
	if ok && f.core().ended() {
		ok = false
	}
	var ctx context.Context
	if !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(t.s.ctx)
		f = open()
		c := f.core()
		c.feedVersions, c.classID, c.cancel = newFeedVersions(), classID, cancel
	}
	if err := enter(f); err != nil {
		if !ok {
			f.core().cancel()
		}
		var none F
		return none, err
	}
	if !ok {
		if !t.s.sessions.add() {
			f.core().cancel()
			var none F
			return none, errShuttingDown
		}
		t.feeds[classID] = f
		go func() {
			defer t.s.sessions.done()
			t.run(ctx, f)
		}()
	}
	f.core().streams++
	return f, nil
}

// leave uncounts a stream (exit, when not nil, uncounts it further, under
// the table's lock); the last one out stops the feed.
func (t *feedTable[F]) leave(f F, exit func(f F)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if exit != nil {
		exit(f)
	}
	c := f.core()
	c.streams--
	if c.streams == 0 {
		c.cancel()
		if cur, ok := t.feeds[c.classID]; ok && cur.core() == c {
			delete(t.feeds, c.classID)
		}
	}
}
