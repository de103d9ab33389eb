package web

import (
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// apiArchive: POST /api/classes/{code}/archive {"archived": true} archives
// the class (it takes no more joins or answers, and is deleted after the
// store's grace period); {"archived": false} restores it, which also
// revives a class that expired for want of use.
func (w *classWeb) apiArchive(c echo.Context) error {
	var in struct {
		Archived *bool `json:"archived"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	if in.Archived == nil {
		return badRequest("archived", "is required: true to archive the class, false to restore it")
	}
	cl, err := w.store().SetArchived(c.Request().Context(), c.Param("code"), teacherKey(c), *in.Archived)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, lifecycleOf(cl, w.s.cfg.Class.Clock()))
}

// lifecycle is where a class stands: open, archived by its teacher or
// expired for want of use, and when it expires or is deleted. Text says
// it to the teacher; Notice says it to a learner of a closed class.
type lifecycle struct {
	Status     string    `json:"status"`
	ArchivedAt time.Time `json:"archived_at,omitzero"`
	ExpiresAt  time.Time `json:"expires_at"`
	DeleteAt   time.Time `json:"delete_at"`
	Text       string    `json:"text"`
	Notice     string    `json:"notice,omitempty"`
}

func lifecycleOf(cl *classroom.Class, now time.Time) lifecycle {
	lc := lifecycle{Status: cl.Status(now), ArchivedAt: cl.ArchivedAt, ExpiresAt: cl.ExpiresAt, DeleteAt: cl.DeleteAt}
	switch lc.Status {
	case classroom.ClassArchived:
		lc.Text = "Archived on " + day(cl.ArchivedAt) + ": learners can no longer join or answer. It is deleted on " +
			day(cl.DeleteAt) + " unless you restore it."
	case classroom.ClassExpired:
		lc.Text = "Expired on " + day(cl.ExpiresAt) + " after going unused: learners can no longer join or answer. It is deleted on " +
			day(cl.DeleteAt) + " unless you restore it."
	default:
		lc.Text = "Open. If nobody uses it, it expires on " + day(cl.ExpiresAt) + "; archive it when the course is over."
	}
	if err := cl.ClosedError(now, "answers"); err != nil {
		lc.Notice = sentence(classroom.ErrorMessage(err))
	}
	return lc
}

// lifecycleTurn is when cl's lifecycle next changes by the clock alone,
// read at now: an open class expires at its ExpiresAt unless something
// uses it first (which is a change of its own). The zero time: never.
func lifecycleTurn(cl *classroom.Class, now time.Time) time.Time {
	if cl.Status(now) != classroom.ClassOpen {
		return time.Time{}
	}
	return cl.ExpiresAt
}

// sentence makes an error message (lower case, no full stop, as errors
// are) a sentence for a page.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	if n == 0 {
		return msg
	}
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// Closed says whether learners can no longer join or answer.
func (lc lifecycle) Closed() bool { return lc.Status != classroom.ClassOpen }

// ArchiveWord is the archive button's label.
func (lc lifecycle) ArchiveWord() string {
	if lc.Closed() {
		return "Restore class"
	}
	return "Archive class"
}

// day is a date as the class pages write it.
func day(t time.Time) string { return t.UTC().Format("2 January 2006") }
