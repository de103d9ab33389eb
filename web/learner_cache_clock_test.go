package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// TestALearnerIsKnownForAMinuteOfTheClassClock: the server remembers
// whose a learner's cookie is for a minute of the class clock
// (Config.Class.Clock), as every other bound of a class reads the time:
// within it Ada's requests are told hers without a read of the store,
// and once the class clock has moved a minute on she is looked up again
// (a removed learner stops counting as one that minute, not a minute of
// the machine's time later).
func TestALearnerIsKnownForAMinuteOfTheClassClock(t *testing.T) {
	st := &learnerReadingStore{Store: openSQLite(t)}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	c := createClass(t, ts.URL, "Known")
	ada, _ := join(t, ts.URL, c.Code, "Ada")

	readsOf := func(what string) int64 {
		t.Helper()
		before := st.reads.Load()
		wantStatus(t, ada.get("/api/me"), http.StatusOK, what)
		return st.reads.Load() - before
	}
	readsOf("Ada's first read") // she is looked up, and remembered
	known := readsOf("Ada's read while she is known")
	clk.Advance(59 * time.Second)
	if n := readsOf("Ada's read 59 s on"); n != known {
		t.Errorf("59 s on the class clock Ada's read read the store %d times, want %d (she is still known)", n, known)
	}
	clk.Advance(time.Second)
	if n := readsOf("Ada's read a minute on"); n != known+1 {
		t.Errorf("a minute on the class clock Ada's read read the store %d times, want %d (looked up again)", n, known+1)
	}
	if n := readsOf("Ada's read after she is looked up again"); n != known {
		t.Errorf("after she was looked up again Ada's read read the store %d times, want %d", n, known)
	}
}
