package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// Live dashboard updates are server-sent events: one-way, plain HTTP
// (nothing for a proxy to upgrade), and the browser reconnects on its own,
// to any replica, after a restart or a deploy. Each event carries the
// whole dashboard, so a merged or missed change loses nothing.
//
// All the streams of one class share one feed: one subscription to the
// store and at most one dashboard read per dashboardInterval, encoded
// once and written to every stream. A class on a projector, three
// laptops and a script that opened a thousand streams costs the store the
// same reads. A stream that writes slowly skips to the newest version
// rather than queue old ones.
const (
	// dashboardInterval bounds how often a class's dashboard is re-read:
	// a class answering at once costs a few reads a second, not one per
	// answer, whatever the number of streams.
	dashboardInterval = 300 * time.Millisecond
	// sseKeepAlive is how often an idle stream sends a comment, so
	// proxies do not time it out and a gone browser is noticed.
	sseKeepAlive = 20 * time.Second
	// streamRetryAfter is the Retry-After of a stream refused at a cap.
	streamRetryAfter = 30
)

// dashFeeds holds the feed of every class with an open dashboard stream
// on this server, and counts the streams against Config.Class.StreamsPerKey.
type dashFeeds struct {
	w *classWeb
	feedTable[*dashFeed]
}

// dashFeed is one class's shared dashboard: its versions and stream count
// (feedCore) and the key its streams read it by.
type dashFeed struct {
	feedCore
	key string // the class's teacher key, which every stream of it carried
	// grades is the class's "Grades to <course>" panel, for a class of a
	// course (class_grades_live.go): versions of its own, so that a
	// change of the grades alone re-reads and sends only the panel.
	grades gradesFeed
}

func newDashFeeds(w *classWeb) *dashFeeds {
	fs := &dashFeeds{w: w}
	fs.feedTable = newFeedTable(w.s, fs.run)
	return fs
}

// errTooManyStreams is the 429 for a stream past its key's cap.
func errTooManyStreams(max int) error {
	return &userError{Status: http.StatusTooManyRequests,
		Msg: fmt.Sprintf("this class's teacher key already has %d live dashboards open, the most it may; close one (another tab or device) and reload", max)}
}

// join counts a new stream of the class, starting its feed if it is the
// first, or refuses it past the per-key cap.
func (fs *dashFeeds) join(classID int64, key string) (*dashFeed, error) {
	return fs.feedTable.join(classID,
		func() *dashFeed { return &dashFeed{key: key, grades: newGradesFeed()} },
		func(f *dashFeed) error {
			if capped := fs.w.s.cfg.Class.StreamsPerKey; f.streams >= capped {
				return errTooManyStreams(capped)
			}
			return nil
		})
}

// leave uncounts a stream; the last one out stops the feed.
func (fs *dashFeeds) leave(f *dashFeed) { fs.feedTable.leave(f, nil) }

// run publishes the class's dashboard, and its grades panel, until the
// last stream leaves or the server shuts down: every change may change
// them, a ChangeGrades the panel alone.
func (fs *dashFeeds) run(ctx context.Context, f *dashFeed) {
	defer f.end()
	defer f.grades.end()
	whole := true      // the dashboard is to be read, not only the panel
	var life time.Time // when the dashboard next changes by the clock alone
	fs.w.followClass(ctx, f.classID, func() (bool, time.Time) {
		if whole || !life.IsZero() && !fs.w.s.cfg.Class.Clock().Before(life) {
			ok, turn := fs.reload(ctx, f)
			if !ok {
				return false, time.Time{}
			}
			life = turn
		}
		whole = false
		return true, earliest(life, fs.reloadGrades(ctx, f))
	}, func(ch classroom.Change) (reload, stop bool) {
		if ch.Kind != classroom.ChangeGrades {
			whole = true
		}
		return true, false
	})
}

// followClass subscribes to a class's changes, calls reload once, then
// again at most once per dashboardInterval while changes come that
// matter says need one, until ctx ends, the store closes the
// subscription, matters says stop, or reload fails. reload also says
// when what it published next changes by the clock alone (a class that
// expires for want of use: no write announces it), and is called again
// then.
func (w *classWeb) followClass(ctx context.Context, classID int64, reload func() (ok bool, turn time.Time),
	matters func(classroom.Change) (reload, stop bool)) {
	// Subscribe before the first read, so that no change between the two
	// is missed.
	changes, err := w.store().Subscribe(ctx, classID)
	if err != nil {
		return
	}
	var turned <-chan time.Time
	load := func() bool {
		ok, turn := reload()
		turned = w.timerTo(turn)
		return ok
	}
	if !load() {
		return
	}
	var last time.Time
	var pending <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ch, ok := <-changes:
			if !ok {
				return // the store closed
			}
			again, stop := matters(ch)
			if stop {
				return
			}
			if again && pending == nil {
				pending = time.After(max(0, dashboardInterval-time.Since(last)))
			}
		case <-turned:
			if !load() {
				return
			}
		case <-pending:
			pending, last = nil, time.Now()
			if !load() {
				return
			}
		}
	}
}

// timerTo fires when the class clock (Config.Class.Clock) reaches at, or
// a second from now if sooner (a clock that stands still, as a test's
// may, then costs a read a second, not a loop); nil, which never fires,
// for the zero time.
func (w *classWeb) timerTo(at time.Time) <-chan time.Time {
	if at.IsZero() {
		return nil
	}
	return w.s.cfg.Class.After(max(time.Second, at.Sub(w.s.cfg.Class.Clock())))
}

// reload reads the dashboard and publishes it, by the key rather than the
// code, which may be rotated under open pages. It reports false when the
// class cannot be read (deleted, or the store failing): the feed ends,
// its streams close, and browsers reconnect, to be told why.
func (fs *dashFeeds) reload(ctx context.Context, f *dashFeed) (bool, time.Time) {
	st := fs.w.store()
	cl, err := st.TeacherClass(ctx, f.key)
	if err != nil {
		return false, time.Time{}
	}
	d, err := st.Dashboard(ctx, cl.Code, f.key)
	if err != nil {
		return false, time.Time{}
	}
	data, err := json.Marshal(fs.w.view(d))
	if err != nil {
		return false, time.Time{}
	}
	// The whole event, written as it is to every plain stream and
	// deflated once for every compressed one.
	event := make([]byte, 0, len(dashEventHead)+len(data)+2)
	event = append(append(append(event, dashEventHead...), data...), "\n\n"...)
	f.publishPiece(event, deflateAlone(event))
	return true, lifecycleTurn(d.Class, fs.w.s.cfg.Class.Clock())
}

// dashEventHead begins a dashboard event; the view's JSON follows.
const dashEventHead = "event: dashboard\ndata: "

// apiEvents: GET /api/classes/{code}/events streams "dashboard" events,
// and for a class of a course "grades" events (class_grades_live.go),
// until the browser goes away or the server shuts down. A stream counts
// against Config.MaxDashboardStreams (503 past it), its address's
// Config.DashboardStreamsPerAddress and its key's
// Config.Class.StreamsPerKey (429 past either).
func (w *classWeb) apiEvents(c echo.Context) error {
	code, key := c.Param("code"), teacherKey(c)
	cl, err := w.store().Teacher(c.Request().Context(), code, key)
	if err != nil {
		return err
	}
	s := w.s
	// Dashboards have a pool of their own: no number of playground
	// sockets keeps a teacher from the class.
	addr := clientAddress(c)
	if err := s.connRefusal(c, s.dashes.tryAcquire(addr), "dashboard streams", s.cfg.MaxDashboardStreams, s.cfg.DashboardStreamsPerAddress); err != nil {
		return err
	}
	defer s.dashes.release(addr)
	f, err := w.feeds.join(cl.ID, key)
	if err != nil {
		c.Response().Header().Set("Retry-After", strconv.Itoa(streamRetryAfter))
		return err
	}
	defer w.feeds.leave(f)
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	if !s.sessions.add() {
		return errShuttingDown
	}
	defer s.sessions.done()
	w.m.streams.Inc()
	defer w.m.streams.Dec()

	st := s.startEventStream(c, true)
	keep := time.NewTicker(sseKeepAlive)
	defer keep.Stop()
	var sent, sentGrades uint64
	for {
		seq, event, piece, done, ready := f.latest()
		gseq, gevent, gpiece, _, gready := f.grades.latest()
		if seq > sent {
			if st.send(event, piece) != nil {
				return nil
			}
			sent = seq
		}
		if gseq > sentGrades {
			if st.send(gevent, gpiece) != nil {
				return nil
			}
			sentGrades = gseq
		}
		if done {
			// The class is gone or the store failed: end the stream, and
			// the browser's reconnection learns which.
			return st.finish()
		}
		select {
		case <-ctx.Done():
			return st.finish()
		case <-ready:
		case <-gready:
		case <-keep.C:
			if st.keepAlive() != nil {
				return nil
			}
		}
	}
}
