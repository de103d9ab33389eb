package web

import "sync"

// feedVersions is what a class feed shares with every stream of it: the
// latest version, encoded, its sequence number, and a channel closed (and
// replaced) whenever the feed changes, which wakes every stream at once
// without a queue per stream. The teacher's dashboard feed (classlive.go)
// and the learners' feed (class_mefeed.go) each keep one.
type feedVersions struct {
	mu    sync.Mutex
	seq   uint64 // version of data; 0 before the first read
	data  []byte
	piece []byte        // data deflated for compressed streams (deflateAlone), or nil
	done  bool          // no more versions: the class is gone or the store failed
	ready chan struct{} // closed when anything changes or done is set
}

func newFeedVersions() feedVersions { return feedVersions{ready: make(chan struct{})} }

// publish makes data the newest version.
func (v *feedVersions) publish(data []byte) { v.publishPiece(data, nil) }

// publishPiece makes data the newest version, with piece, data deflated
// once for every compressed stream.
func (v *feedVersions) publishPiece(data, piece []byte) {
	v.change(func() {
		v.seq++
		v.data, v.piece = data, piece
	})
}

// change runs fn with the feed locked (for what a feed keeps beside its
// versions under the same lock) and wakes every stream.
func (v *feedVersions) change(fn func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fn()
	if !v.done { // once done, ready is closed for good
		close(v.ready)
		v.ready = make(chan struct{})
	}
}

// end says there will be no more versions.
func (v *feedVersions) end() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.done {
		v.done = true
		close(v.ready)
	}
}

func (v *feedVersions) ended() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.done
}

// latest returns the newest version and its piece, whether the feed has ended, and a
// channel closed when either changes.
func (v *feedVersions) latest() (seq uint64, data, piece []byte, done bool, ready <-chan struct{}) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.seq, v.data, v.piece, v.done, v.ready
}
