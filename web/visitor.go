package web

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/web/admission"
)

// VisitorCookie names the cookie that tells one anonymous browser from
// another for the admission controller's fair shares. Outside a class a
// learner has no session, so without it every visitor behind one address
// (a workshop on a school's network, with no join code) would share one
// session's quarter of the run slots; with it each browser has a share of
// its own, and the address's share still bounds them all together.
//
// The value is a random id and nothing else: it is not signed, because it
// grants nothing. A client that makes up ids, or drops the cookie, gains
// nothing its address's share did not already allow. It is set on the
// first request that runs the engine (never on a page, which stays the
// same for everyone and can be cached), so a browser's first run is
// admitted by its address and every later one by its own id.
const VisitorCookie = "pg_visitor"

// visitorIDLen is the length of a visitor id: 16 random bytes, base64url.
const visitorIDLen = 22

// visitorID returns the request's visitor id, or "" when it has none or
// the cookie is not one the server could have made.
func visitorID(c echo.Context) string {
	ck, err := c.Cookie(VisitorCookie)
	if err != nil || len(ck.Value) != visitorIDLen {
		return ""
	}
	if _, err := base64.RawURLEncoding.DecodeString(ck.Value); err != nil {
		return ""
	}
	return ck.Value
}

// newVisitorID makes a fresh visitor id.
func newVisitorID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// requester is whom a request's runs are admitted for: the learner's
// class session (the cookie) when there is one, else the browser's visitor
// id, and the client's address (X-Forwarded-For only from the proxies
// TrustProxies names). A request with neither cookie is admitted by its
// address, and its answer sets a visitor cookie for the next one.
func requester(c echo.Context) admission.Who {
	who := admission.Who{Session: learnerToken(c), IP: c.RealIP()}
	if who.Session != "" {
		return who
	}
	if v := visitorID(c); v != "" {
		who.Session = "v:" + v
		return who
	}
	setCookie(c, VisitorCookie, newVisitorID())
	return who
}
