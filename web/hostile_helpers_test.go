package web_test

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The tests of hostile clients play each attacker and each classmate from
// an address of its own: 127.0.0.2 and up are loopback addresses too, and
// a connection dialled from one reaches the test server with that address
// as its peer's.

// dialerFrom dials TCP from the loopback address ip.
func dialerFrom(ip string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
}

// clientFrom is an HTTP client whose requests come from ip, with its own
// cookie jar and no redirects followed.
func clientFrom(ip string) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:       jar,
		Timeout:   60 * time.Second,
		Transport: &http.Transport{DialContext: dialerFrom(ip).DialContext, MaxIdleConnsPerHost: 64},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// personFrom is a browser at ip.
func personFrom(tb testing.TB, base, ip string) *person {
	p := newPerson(tb, base)
	p.c = clientFrom(ip)
	return p
}

// tryDialFrom opens /ws/run from ip, returning the handshake's status when
// it is refused.
func tryDialFrom(t *testing.T, baseURL, ip string, header http.Header) (*wsClient, int) {
	t.Helper()
	d := websocket.Dialer{NetDialContext: dialerFrom(ip).DialContext, HandshakeTimeout: 10 * time.Second}
	conn, res, err := d.DialContext(context.Background(), "ws"+strings.TrimPrefix(baseURL, "http")+"/ws/run", header)
	if err != nil {
		if res != nil {
			return nil, res.StatusCode
		}
		t.Fatalf("dial from %s: %v", ip, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &wsClient{t, conn}, http.StatusSwitchingProtocols
}

// dialFrom opens /ws/run from ip and fails the test if it is refused.
func dialFrom(t *testing.T, baseURL, ip string, header http.Header) *wsClient {
	t.Helper()
	c, status := tryDialFrom(t, baseURL, ip, header)
	if c == nil {
		t.Fatalf("dial from %s: status %d", ip, status)
	}
	return c
}
