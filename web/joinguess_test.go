package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// TestJoinCodeGuessingIsSlowedDown: a script guessing join codes from one
// address has its wrong codes counted apart from its joins: after 30 of
// them every join from that address waits (429 with Retry-After), even
// one with a right code, through the API or the form; a classmate at
// another address joins at once.
func TestJoinCodeGuessingIsSlowedDown(t *testing.T) {
	st := openSQLite(t)
	var now atomic.Int64
	now.Store(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clock}})
	c := createClass(t, ts.URL, "Guarded")
	script := personFrom(t, ts.URL, "127.0.0.2")
	codes := []string{"ABCDEFGH", "HJKMNPQR", "STUVWXYZ"}
	for i := range 30 {
		a := script.postJSON("/api/classes/"+codes[i%3]+"/join", `{"name":"guess `+string(rune('a'+i%26))+`"}`)
		if a.status != http.StatusNotFound {
			t.Fatalf("wrong code %d: %d %s", i+1, a.status, a.body)
		}
	}
	a := script.postJSON("/api/classes/"+c.Code+"/join", `{"name":"Lucky"}`)
	if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "too many class codes that name no class, or device codes") {
		t.Errorf("the script's right code after 30 wrong ones: %d %s", a.status, a.body)
	}
	f := script.postForm("/class/join", url.Values{"code": {c.Code}, "name": {"Lucky"}})
	if f.status != http.StatusTooManyRequests {
		t.Errorf("the form after 30 wrong codes: %d", f.status)
	}
	mate := personFrom(t, ts.URL, "127.0.0.3")
	if a := mate.postJSON("/api/classes/"+c.Code+"/join", `{"name":"Ana"}`); a.status != http.StatusCreated && a.status != http.StatusOK {
		t.Errorf("a classmate at another address: %d %s", a.status, a.body)
	}
	// Twelve seconds later the script may try one more code.
	now.Add(int64(12 * time.Second))
	if a := script.postJSON("/api/classes/"+c.Code+"/join", `{"name":"Lucky"}`); a.status != http.StatusCreated && a.status != http.StatusOK {
		t.Errorf("a right code once the bucket refilled one: %d %s", a.status, a.body)
	}
}
