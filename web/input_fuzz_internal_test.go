package web

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzPracticeCookie reads a practice cookie whose payload is anything at
// all, signed with the server's own key (what a bug in an older server,
// or the key leaking, could send), on the routes that read it: the
// solution and the check answer, never a 500, and the state read is
// bounded. An unsigned value is read as an empty state.
func FuzzPracticeCookie(f *testing.F) {
	srv, err := NewServer(Config{})
	if err != nil {
		f.Fatal(err)
	}
	key, err := srv.practiceKey(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	for _, s := range []string{`{"n":1,"e":{"outlive-lease":[3,2,1,1]}}`, `{"n":-1,"e":{"outlive-lease":[-5,-1,255,-9]}}`,
		`{"e":{}}`, `{}`, `null`, `[]`, `{"n":1e300,"e":{"x":[1e300,0,0,0]}}`, `{"e":{"outlive-lease":[1,2,3]}}`} {
		f.Add([]byte(s), true)
	}
	f.Add([]byte("not signed"), false)
	f.Fuzz(func(t *testing.T, raw []byte, signed bool) {
		value := base64.RawURLEncoding.EncodeToString(raw) + "."
		if signed {
			value += base64.RawURLEncoding.EncodeToString(practiceMAC(key, raw))
		}
		for _, r := range []struct{ method, path, body string }{
			{"GET", "/api/exercises/outlive-lease/solution", ""},
			{"POST", "/api/exercises/outlive-lease/check", `{"answer":"50"}`},
		} {
			req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
			req.Header.Set("Content-Type", "application/json")
			req.AddCookie(&http.Cookie{Name: PracticeCookie, Value: value})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s %s with the cookie %.200q: %d %.300s", r.method, r.path, raw, rec.Code, rec.Body.String())
			}
			for _, ck := range rec.Result().Cookies() {
				if ck.Name == PracticeCookie && len(ck.Value) > 4096 {
					t.Fatalf("the cookie written back is %d bytes", len(ck.Value))
				}
			}
		}
	})
}

// FuzzSpeedParam reads a speed, anything at all, as the share links'
// ?speed= carries it: a number within the engine's bounds, or an error
// naming "speed" with the one wording every speed check uses.
func FuzzSpeedParam(f *testing.F) {
	for _, s := range []string{"", "5", "0", "1000", "1000.0001", "-1", "NaN", "Inf", "1e308", "0x10", "five", "5 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseSpeed(s, 5)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "speed: must be a number between 0 (as fast as possible) and 1000, not ") {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if v < 0 || v > 1000 || v != v {
			t.Fatalf("%q read as %g", s, v)
		}
	})
}
