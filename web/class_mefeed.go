package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/leaselab/playground/classroom"
)

// A learner's page follows what the teacher does to the class (a push,
// the settings, archiving) through GET /api/me/events. What it shows is
// the same for every learner of the class, so, as for the dashboards
// (classlive.go), all the learner streams of one class on this server
// share one feed: one subscription to the store's changes (the same
// LISTEN/NOTIFY path on PostgreSQL), and one read of the class per
// change that matters, whatever the number of learners. Answers and joins
// change nothing a learner's banner shows, so they cost no read at all.

// learnerFeeds holds the feed of every class with an open learner stream
// on this server, and counts each learner's streams against
// Config.Class.Live.StreamsPerLearner.
type learnerFeeds struct {
	w *classWeb
	feedTable[*learnerFeed]
}

// learnerFeed is one class's shared learner state: its versions and
// stream count (feedCore), each learner's streams, the learners removed
// since the feed began, and the sessions that ended under open streams
// (the learner went on in another browser).
type learnerFeed struct {
	feedCore
	// Guarded by the feedTable's lock: each learner's streams, by session
	// token (any one of them reads the class).
	learners map[int64]*feedLearner

	gone  map[int64]bool  // learners removed from the class; guarded by feedVersions.mu
	ended map[string]bool // sessions the store no longer knows; guarded by feedVersions.mu
}

type feedLearner struct {
	sessions map[string]int // streams of each session token
	streams  int
}

// feedSession is a learner following the feed, with one of their
// session tokens.
type feedSession struct {
	learnerID int64
	token     string
}

// classState is one event of a learner stream, and what /api/me
// carries beside the learner and their progress: the class as its
// learners see it, and how often a page without a stream should poll.
type classState struct {
	Class  classSummary `json:"class"`
	PollMS int64        `json:"poll_ms"`
}

func newLearnerFeeds(w *classWeb) *learnerFeeds {
	fs := &learnerFeeds{w: w}
	fs.feedTable = newFeedTable(w.s, fs.run)
	return fs
}

// errTooManyLearnerStreams is the 429 for a learner past their cap.
func errTooManyLearnerStreams(max int) error {
	return &userError{Status: http.StatusTooManyRequests,
		Msg: fmt.Sprintf("one learner may follow the class live in at most %d pages at once; this page checks every few seconds instead", max)}
}

// join counts a new stream of a learner, starting the class's feed if it
// is the first, or refuses it past the per-learner cap.
func (fs *learnerFeeds) join(classID, learnerID int64, token string) (*learnerFeed, error) {
	return fs.feedTable.join(classID,
		func() *learnerFeed {
			return &learnerFeed{learners: map[int64]*feedLearner{}, gone: map[int64]bool{}, ended: map[string]bool{}}
		},
		func(f *learnerFeed) error {
			fl := f.learners[learnerID]
			if capped := fs.w.s.cfg.Class.Live.StreamsPerLearner; fl != nil && fl.streams >= capped {
				return errTooManyLearnerStreams(capped)
			}
			if fl == nil {
				fl = &feedLearner{sessions: map[string]int{}}
				f.learners[learnerID] = fl
			}
			fl.sessions[token]++
			fl.streams++
			return nil
		})
}

// leave uncounts a stream of a learner's session; the last one out stops
// the feed.
func (fs *learnerFeeds) leave(f *learnerFeed, learnerID int64, token string) {
	fs.feedTable.leave(f, func(f *learnerFeed) {
		fl := f.learners[learnerID]
		if fl == nil {
			return
		}
		if fl.sessions[token]--; fl.sessions[token] <= 0 {
			delete(fl.sessions, token)
			f.forget(token)
		}
		if fl.streams--; fl.streams <= 0 {
			delete(f.learners, learnerID)
		}
	})
}

// sessions returns every learner following the feed with each of their
// session tokens, or only learner's when it is not 0.
func (fs *learnerFeeds) sessions(f *learnerFeed, learner int64) []feedSession {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []feedSession
	for id, fl := range f.learners {
		if learner != 0 && id != learner {
			continue
		}
		for token := range fl.sessions {
			out = append(out, feedSession{id, token})
		}
	}
	return out
}

// learnerSees says whether a change of this kind can change what a
// learner's page shows of the class.
func learnerSees(kind string) bool {
	switch kind {
	case classroom.ChangeScenario, classroom.ChangeSettings, classroom.ChangeCode, classroom.ChangeArchive,
		classroom.ChangeResync:
		return true
	}
	return false
}

// run publishes what the class's learners see, reading it again when a
// change they see comes, until the last stream leaves or the server shuts
// down; a removed learner's streams end at once.
func (fs *learnerFeeds) run(ctx context.Context, f *learnerFeed) {
	defer f.end()
	fs.w.followClass(ctx, f.classID, func() (bool, time.Time) { return fs.reload(ctx, f) },
		func(ch classroom.Change) (reload, stop bool) {
			switch {
			case ch.Kind == classroom.ChangeDeleted:
				return false, true // the class is gone
			case ch.Kind == classroom.ChangeRemove:
				f.remove(ch.LearnerID)
				return false, false
			case ch.Kind == classroom.ChangeSession:
				fs.endStaleSessions(ctx, f, ch.LearnerID)
				return false, false
			}
			return learnerSees(ch.Kind), false
		})
}

// endStaleSessions ends the streams of the learner's sessions the store
// no longer knows: they went on in another browser, whose session is
// theirs now. Each session is asked, rather than all but the newest
// ended, since the new browser's stream may already follow the feed.
func (fs *learnerFeeds) endStaleSessions(ctx context.Context, f *learnerFeed, learnerID int64) {
	for _, fsn := range fs.sessions(f, learnerID) {
		if _, _, err := fs.w.store().Learner(ctx, fsn.token); sessionUnknown(err) {
			f.endSession(fsn.token)
		}
	}
}

// sessionUnknown says whether err means the store no longer knows the
// session (ended, or its learner removed).
func sessionUnknown(err error) bool {
	var ce *classroom.Error
	return errors.As(err, &ce) && (ce.Code == classroom.EUNAUTHORIZED || ce.Code == classroom.ENOTFOUND)
}

// reload reads the class with the session of a learner following it and
// publishes what learners see. A session the store no longer knows (its
// learner removed, or gone on in another browser: a notification of it
// may have been dropped) has its streams ended and the next session is
// tried. It reports false when the class cannot be read: the feed ends,
// its streams close, and browsers reconnect, to be told why.
func (fs *learnerFeeds) reload(ctx context.Context, f *learnerFeed) (bool, time.Time) {
	for _, fsn := range fs.sessions(f, 0) {
		_, cl, err := fs.w.store().Learner(ctx, fsn.token)
		if sessionUnknown(err) {
			f.endSession(fsn.token)
			continue
		}
		if err != nil || cl.ID != f.classID {
			return false, time.Time{}
		}
		data, err := json.Marshal(fs.w.classStateOf(cl))
		if err != nil {
			return false, time.Time{}
		}
		f.publish(data)
		return true, lifecycleTurn(cl, fs.w.s.cfg.Class.Clock())
	}
	// Nobody left to read it for: the feed is stopping.
	return true, time.Time{}
}

// classStateOf is what a learner sees of cl.
func (w *classWeb) classStateOf(cl *classroom.Class) classState {
	return classState{Class: w.summarize(cl), PollMS: w.s.cfg.Class.Live.Poll.Milliseconds()}
}

// remove ends the streams of a learner removed from the class.
func (f *learnerFeed) remove(learnerID int64) {
	f.change(func() { f.gone[learnerID] = true })
}

// endSession ends the streams of a session the store no longer knows.
func (f *learnerFeed) endSession(token string) {
	f.change(func() { f.ended[token] = true })
}

// forget drops an ended session once its last stream has left.
func (f *learnerFeed) forget(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ended, token)
}

// following returns the newest version, whether the learner was removed
// or the session ended, whether the feed has ended, and a channel closed
// when any changes.
func (f *learnerFeed) following(learnerID int64, token string) (seq uint64, data []byte, gone, done bool, ready <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seq, f.data, f.gone[learnerID] || f.ended[token], f.done, f.ready
}
