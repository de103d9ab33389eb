package web

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/leaselab/playground/classroom"
)

// The dashboard's "Grades to <course>" panel is live on the dashboard's
// own stream: the store publishes a classroom.ChangeGrades whenever a
// score or a reveal of the class is queued, tried, sent, given up or
// re-armed (through pg_notify with replicas, so whichever replica's
// worker sent it), and the class's feed reads the panel again, at most
// once per dashboardInterval however many came, and writes it to every
// stream as a "grades" event beside the "dashboard" ones. A change of
// the grades alone re-reads the panel and not the dashboard; any other
// change of the class (a learner removed, a link re-pointed by a launch,
// a reveal) re-reads both, since it may change the panel too. The panel
// is sent only when it reads differently from the last one sent.

// gradesEventHead begins a grades event; the panel's JSON (gradesView)
// follows.
const gradesEventHead = "event: grades\ndata: "

// gradesReadAgain is when a panel whose read failed is read again, if
// no change comes before.
const gradesReadAgain = 30 * time.Second

// gradesFeed is a class's panel as its feed last published it.
type gradesFeed struct {
	feedVersions
	// none says the class is of no course (or the server sends no
	// grades): a class is made by a course's first launch or never of
	// one, so it is not read again.
	none bool
	// last is the event last published. none and last belong to the
	// feed's goroutine.
	last []byte
}

func newGradesFeed() gradesFeed { return gradesFeed{feedVersions: newFeedVersions()} }

// reloadGrades reads the class's panel and publishes it when it reads
// differently from the last; it returns when its words next change by
// the clock alone ("next try in 4 min"), zero when they do not.
func (fs *dashFeeds) reloadGrades(ctx context.Context, f *dashFeed) time.Time {
	g := &f.grades
	if g.none {
		return time.Time{}
	}
	s := fs.w.s
	v, err := s.classGrades(ctx, f.classID)
	now := s.cfg.Class.Clock()
	switch {
	case classroom.ErrorCode(err) == classroom.ENOTFOUND:
		g.none = true
		return time.Time{}
	case err != nil:
		s.log.Warn("lti: could not read a class's grades for its dashboard", "class", f.classID, "err", err)
		// The card says so: what it shows may be out of date.
		g.send(gradesUnread{Unread: gradesUnreadWords})
		return now.Add(gradesReadAgain)
	}
	g.send(v)
	return gradesTurn(v, now)
}

// gradesUnread is the grades event of a panel whose read failed: the
// card keeps what it shows and says, on its status line, that it could
// not be read, until the next good read.
type gradesUnread struct {
	Unread string `json:"unread"`
}

// gradesUnreadWords is what the card's status line says of a failed read.
var gradesUnreadWords = "Could not read the grades; trying again in " + strconv.Itoa(int(gradesReadAgain/time.Second)) + " s."

// send publishes v as a grades event to every stream when it reads
// differently from the last one published.
func (g *gradesFeed) send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	event := make([]byte, 0, len(gradesEventHead)+len(data)+2)
	event = append(append(append(event, gradesEventHead...), data...), "\n\n"...)
	if !bytes.Equal(event, g.last) {
		g.last = event
		g.publishPiece(event, deflateAlone(event))
	}
}

// gradesTurn is when the panel's words next change by the clock alone:
// what waits says when it is tried next, in minutes, so at most a minute
// on, and at the try itself; zero when nothing waits or its try is due
// (the try's outcome is a change of its own).
func gradesTurn(v *gradesView, now time.Time) time.Time {
	if v.WaitingText == "" || !v.NextAt.After(now) {
		return time.Time{}
	}
	return earliest(v.NextAt, now.Add(time.Minute))
}

// earliest is the earlier of two times, zero meaning never.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}
