package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/lessons"
)

// TestPracticeCookieKeepsTheLatest: with far more exercises than it keeps,
// the cookie holds the most recently used ones, stays under 4 KB, and
// reads back as written.
func TestPracticeCookieKeepsTheLatest(t *testing.T) {
	e := echo.New()
	key := []byte("0123456789abcdef0123456789abcdef")
	st := practiceState{E: map[string]practiceEntry{}}
	for i := range 200 {
		st.record(fmt.Sprintf("exercise-number-%03d", i), 999_999, lessons.Result{Graded: true}, false)
	}
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
	writePractice(c, key, st)
	cookie := rec.Result().Cookies()[0]
	if len(cookie.Value) > 4000 {
		t.Fatalf("the cookie is %d bytes", len(cookie.Value))
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(cookie)
	got := readPractice(e.NewContext(req, httptest.NewRecorder()), key)
	if len(got.E) != maxPracticeEntries {
		t.Fatalf("%d entries kept, want %d", len(got.E), maxPracticeEntries)
	}
	if _, ok := got.E["exercise-number-199"]; !ok {
		t.Error("the latest exercise was dropped")
	}
	if _, ok := got.E["exercise-number-000"]; ok {
		t.Error("the oldest exercise was kept")
	}
	if s := got.standing("exercise-number-199", 999_999); s.Tries != 1 {
		t.Errorf("standing %+v, want one wrong try", s)
	}
	if s := got.standing("exercise-number-199", 3); s.Tries != 0 {
		t.Errorf("another variant stands on %+v, want nothing", s)
	}
	// Another key reads nothing.
	if other := readPractice(e.NewContext(req, httptest.NewRecorder()), []byte("another key, another server......")); len(other.E) != 0 {
		t.Errorf("a cookie signed with another key read as %d entries", len(other.E))
	}
}
