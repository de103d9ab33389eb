package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/lessons"
)

// PracticeCookie names the cookie that remembers what a learner outside a
// class has done on each exercise: the variant they practise, their wrong
// tries, and whether they were right, gave up or submitted. It is what
// decides, for anonymous learners, whether GET /api/exercises/{id}/solution
// may answer.
//
// The state lives in the cookie, signed by the server (HMAC-SHA256), and
// nowhere else:
//   - bounded: the server keeps nothing per visitor, so any number of
//     anonymous visitors cost it no memory or rows; the cookie itself
//     keeps at most maxPracticeEntries exercises (the least recently used
//     go first), well under a browser's 4 KB;
//   - honest: editing the cookie breaks its signature and it is read as
//     empty, so nobody unlocks a solution by writing "correct" into it.
//     What it cannot stop is going back to an older copy of itself, which
//     only ever loses progress; giving up is always there anyway.
//
// The key is the classroom store's server secret "practice-cookie" when
// there is a store (so replicas share it and a restart keeps it), else a
// random key for the life of the process.
const PracticeCookie = "pg_practice"

// maxPracticeEntries bounds the exercises one practice cookie remembers.
const maxPracticeEntries = 48

// practiceKeys holds the signing key once it is known.
type practiceKeys struct {
	mu  sync.Mutex
	key []byte
}

// practiceSecret is the store's name for the key.
const practiceSecret = "practice-cookie"

// practiceKey returns the signing key, fetching or making it once.
func (s *Server) practiceKey(ctx context.Context) ([]byte, error) {
	s.practice.mu.Lock()
	defer s.practice.mu.Unlock()
	if s.practice.key != nil {
		return s.practice.key, nil
	}
	if s.cfg.Classroom != nil {
		k, err := s.cfg.Classroom.ServerSecret(ctx, practiceSecret)
		if err != nil {
			return nil, err
		}
		s.practice.key = k
		return k, nil
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	s.practice.key = k
	return k, nil
}

// practiceEntry is what the cookie keeps for one exercise: [variant,
// wrong tries, flags, last use].
type practiceEntry [4]int

// Flags of a practice entry.
const (
	practiceCorrect   = 1
	practiceGaveUp    = 2
	practiceSubmitted = 4
)

// practiceState is the decoded cookie: a use counter and the entries.
type practiceState struct {
	N int                      `json:"n"`
	E map[string]practiceEntry `json:"e"`
}

// readPractice decodes and verifies the cookie; anything missing, broken
// or forged reads as an empty state.
func readPractice(c echo.Context, key []byte) practiceState {
	st := practiceState{E: map[string]practiceEntry{}}
	ck, err := c.Cookie(PracticeCookie)
	if err != nil || len(ck.Value) > 4096 {
		return st
	}
	payload, sig, ok := strings.Cut(ck.Value, ".")
	if !ok {
		return st
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(payload)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, practiceMAC(key, raw)) {
		return st
	}
	var got practiceState
	if json.Unmarshal(raw, &got) != nil || got.E == nil {
		return st
	}
	return got
}

func practiceMAC(key, raw []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("practice/v1\n"))
	m.Write(raw)
	return m.Sum(nil)
}

// writePractice signs the state and sets the cookie, after dropping the
// least recently used entries beyond the bound.
func writePractice(c echo.Context, key []byte, st practiceState) {
	if len(st.E) > maxPracticeEntries {
		ids := make([]string, 0, len(st.E))
		for id := range st.E {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return st.E[ids[i]][3] < st.E[ids[j]][3] })
		for _, id := range ids[:len(ids)-maxPracticeEntries] {
			delete(st.E, id)
		}
	}
	raw, _ := json.Marshal(st)
	value := base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(practiceMAC(key, raw))
	c.SetCookie(&http.Cookie{Name: PracticeCookie, Value: value, Path: "/", MaxAge: int(cookieAge.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
}

// standing is a practice entry as the checker reads it, for a variant:
// practising another variant starts again from nothing.
func (st practiceState) standing(id string, variant int) lessons.Standing {
	e, ok := st.E[id]
	if !ok || e[0] != variant {
		return lessons.Standing{}
	}
	return lessons.Standing{Tries: e[1], Correct: e[2]&practiceCorrect != 0,
		GaveUp: e[2]&practiceGaveUp != 0, Submitted: e[2]&practiceSubmitted != 0}
}

// record notes what a check or a give-up did to an exercise's entry.
func (st *practiceState) record(id string, variant int, res lessons.Result, gaveUp bool) {
	e, ok := st.E[id]
	if !ok || e[0] != variant {
		e = practiceEntry{variant, 0, 0, 0}
	}
	switch {
	case gaveUp:
		e[2] |= practiceGaveUp
	case res.FormatError != "":
		return // costs nothing, changes nothing
	case res.Submitted:
		e[2] |= practiceSubmitted
	case res.Correct:
		e[2] |= practiceCorrect
	case res.Graded:
		e[1] = min(e[1]+1, 1000)
	}
	st.N++
	e[3] = st.N
	st.E[id] = e
}
