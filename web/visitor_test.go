package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/web"
)

// visitorCookie dials the websocket without cookies and returns the
// visitor cookie its handshake's answer set.
func visitorCookie(t testing.TB, baseURL string) string {
	t.Helper()
	conn, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(baseURL, "http")+"/ws/run", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	conn.Close()
	for _, ck := range res.Cookies() {
		if ck.Name == web.VisitorCookie {
			if id, mac, ok := strings.Cut(ck.Value, "."); !ok || len(id) != 22 || len(mac) != 22 || !ck.HttpOnly {
				t.Errorf("visitor cookie %+v: want a 22-character id and its signature, HttpOnly", ck)
			}
			return ck.Name + "=" + ck.Value
		}
	}
	t.Fatalf("the handshake set no %s cookie: %v", web.VisitorCookie, res.Header["Set-Cookie"])
	return ""
}

// TestAnonymousBrowsersBehindOneAddressEachHaveAShare: outside a class,
// each browser (its visitor cookie) holds a session's share of its own,
// so one visitor that takes its quarter does not hold up the others behind
// the same address; a made-up cookie counts as none.
func TestAnonymousBrowsersBehindOneAddressEachHaveAShare(t *testing.T) {
	ts, srv := startServer(t, web.Config{RunSlots: 4, MaxLiveRuns: 8})
	a, b := visitorCookie(t, ts.URL), visitorCookie(t, ts.URL)
	if a == b {
		t.Fatalf("two browsers were given the same visitor id %s", a)
	}
	start := func(c *wsClient) {
		c.send(map[string]any{"type": "start", "scenario": preset(t, "paused-holder", true), "speed": 1})
	}
	for i := range 3 {
		c := dial(t, ts.URL, http.Header{"Cookie": {a}})
		start(c)
		if i < 2 {
			c.started()
		} else if pos := c.queued(); pos != 1 {
			t.Errorf("visitor A's third run told place %d, want 1 (a quarter of the places is two runs)", pos)
		}
	}
	other := dial(t, ts.URL, http.Header{"Cookie": {b}})
	start(other)
	other.started() // visitor B's run while A's third waits: not told a place
	// A cookie the server could not have made is no identity: the run is
	// admitted by the address, whose own quarter is still free.
	forged := dial(t, ts.URL, http.Header{"Cookie": {web.VisitorCookie + "=not-an-id"}})
	start(forged)
	forged.started() // admitted by its address
	if n := srv.LiveRuns(); n != 4 {
		t.Errorf("%d runs live, want 4", n)
	}
}

// TestAClassLearnerKeepsTheClassSession: a learner's class cookie is the
// session; no visitor cookie is set beside it. A token the store never
// issued is no session: its browser is a visitor like any other.
func TestAClassLearnerKeepsTheClassSession(t *testing.T) {
	st := openSQLite(t)
	ts, _ := startServer(t, web.Config{Classroom: st})
	c := createClass(t, ts.URL, "Sessions")
	p, _ := join(t, ts.URL, c.Code, "Ana")
	for _, tc := range []struct {
		token   string
		visitor bool
	}{{p.cookie(web.LearnerCookie), false}, {"someone", true}} {
		h := http.Header{"Cookie": {web.LearnerCookie + "=" + tc.token}}
		conn, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/run", h)
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if set := res.Header["Set-Cookie"]; (len(set) != 0) != tc.visitor {
			t.Errorf("token %q: the handshake set cookies %v, want a visitor cookie: %v", tc.token, set, tc.visitor)
		}
	}
}
