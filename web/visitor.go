package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/web/admission"
)

// VisitorCookie names the cookie that tells one anonymous browser from
// another for the admission controller's fair shares. Outside a class a
// learner has no session, so without it every visitor behind one address
// (a workshop on a school's network, with no join code) would share one
// flow; with it each browser is a flow of its own, and the address's
// share still bounds them all together.
//
// The value is a random id and the server's signature of it
// (HMAC-SHA256, the store's "visitor-cookie" secret, or a key of the
// process's own without a store). Only ids the server issued are flows:
// made-up ids would each be a new flow, and a script with a hundred of
// them would crowd out a classmate on the same address who has one. A
// request whose cookie is missing, made up or signed by another key is
// admitted as its address's one anonymous flow. New ids are issued on the
// first request that runs the engine (never on a page, which stays the
// same for everyone and can be cached), at most visitorRate to one
// address: past it the anonymous flow it is.
const VisitorCookie = "pg_visitor"

// visitorIDLen is the length of a visitor id: 16 random bytes, base64url.
// A cookie is the id, a dot and visitorMACLen characters of signature.
const (
	visitorIDLen  = 22
	visitorMACLen = 22 // 16 bytes of the HMAC, base64url
)

// visitorSecret is the store's name for the visitor cookie's key.
const visitorSecret = "visitor-cookie"

// visitorRate bounds the visitor ids one address is issued: the largest class
// (500) arriving together, then a newcomer every second.
var visitorRate = Rate{PerMinute: 60, Burst: 500}

// visitorKeys holds the signing key once it is known.
type visitorKeys struct {
	mu  sync.Mutex
	key []byte
}

// visitorKey returns the signing key, fetching it from the store or
// making one once; nil when the store does not answer (the request is then
// admitted by its address, and the next one tries again).
func (s *Server) visitorKey(ctx context.Context) []byte {
	s.visitor.mu.Lock()
	defer s.visitor.mu.Unlock()
	if s.visitor.key != nil {
		return s.visitor.key
	}
	if s.cfg.Classroom != nil {
		k, err := s.cfg.Classroom.ServerSecret(ctx, visitorSecret)
		if err != nil {
			return nil
		}
		s.visitor.key = k
		return k
	}
	k := make([]byte, 32)
	rand.Read(k) // never fails (crypto/rand, Go 1.24+)
	s.visitor.key = k
	return k
}

func visitorMAC(key []byte, id string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// visitorID returns the request's visitor id if the server issued it, or
// "".
func visitorID(c echo.Context, key []byte) string {
	ck, err := c.Cookie(VisitorCookie)
	if err != nil || key == nil || len(ck.Value) != visitorIDLen+1+visitorMACLen {
		return ""
	}
	id, mac, ok := strings.Cut(ck.Value, ".")
	if !ok || len(id) != visitorIDLen || !hmac.Equal([]byte(mac), []byte(visitorMAC(key, id))) {
		return ""
	}
	return id
}

// newVisitorCookie makes a fresh signed visitor id.
func newVisitorCookie(key []byte) string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	id := base64.RawURLEncoding.EncodeToString(b)
	return id + "." + visitorMAC(key, id)
}

// requester is whom a request's runs are admitted for: the learner the
// class session cookie belongs to, when the store knows it; else the
// browser's visitor id, when the server signed it; else nobody in
// particular, which the controller counts as the address's anonymous
// flow. The address is the client's (clientAddress). A request without a
// valid visitor cookie is sent a new one, within its address's
// visitorRate.
func (s *Server) requester(c echo.Context) admission.Who {
	who := admission.Who{IP: clientAddress(c), Session: s.issuedSession(c)}
	if who.Session != "" {
		return who
	}
	key := s.visitorKey(c.Request().Context())
	if key == nil {
		return who
	}
	if ok, _ := s.visitorIDs.take(who.IP); ok {
		setCookie(c, VisitorCookie, newVisitorCookie(key))
	}
	return who
}

// issuedSession is the session the server issued that the request
// carries: "l:" and the learner's id when the store knows its class
// session token, else "v:" and its visitor id when the server signed it,
// else "". Nothing is issued here.
func (s *Server) issuedSession(c echo.Context) string {
	ctx := c.Request().Context()
	if id, ok := s.knownLearner(c); ok {
		return "l:" + strconv.FormatInt(id, 10)
	}
	if key := s.visitorKey(ctx); key != nil {
		if v := visitorID(c, key); v != "" {
			return "v:" + v
		}
	}
	return ""
}

// learnerCache remembers which session tokens the store knows, and whose
// they are, for a minute of the class clock (Config.Class.Clock): a run's
// admission need not read the store every time, and a removed learner
// stops counting as a flow within a minute.
// Unknown tokens are not remembered, so made-up ones cannot fill it.
type learnerCache struct {
	mu      sync.Mutex
	entries map[string]learnerEntry
}

type learnerEntry struct {
	id    int64
	until time.Time
}

// learnerCacheSize bounds the tokens remembered; past it they are all
// forgotten and read again.
const learnerCacheSize = 10000

// peek returns the id of the learner whose session token this is, when
// it was resolved within the minute before now (the class clock,
// Config.Class.Clock), without reading the store.
func (lc *learnerCache) peek(token string, now time.Time) (int64, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	e, ok := lc.entries[token]
	if !ok || !now.Before(e.until) {
		return 0, false
	}
	return e.id, true
}

// resolve returns the id of the learner whose session token this is,
// remembered for a minute of the class clock (Config.Class.Clock).
func (lc *learnerCache) resolve(ctx context.Context, s *Server, token string) (int64, bool) {
	if token == "" || s.cfg.Classroom == nil || len(token) > 256 {
		return 0, false
	}
	now := s.cfg.Class.Clock()
	lc.mu.Lock()
	e, ok := lc.entries[token]
	lc.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.id, true
	}
	l, _, err := s.cfg.Classroom.Learner(ctx, token)
	if err != nil {
		return 0, false
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.entries == nil || len(lc.entries) >= learnerCacheSize {
		lc.entries = map[string]learnerEntry{}
	}
	lc.entries[token] = learnerEntry{id: l.ID, until: now.Add(time.Minute)}
	return l.ID, true
}
