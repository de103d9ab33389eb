package lti

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// FuzzLaunchForm: whatever a form holds, reading it either gives an
// id_token and state within their bounds or an *Error naming the field,
// with a 4xx status.
func FuzzLaunchForm(f *testing.F) {
	f.Add("id_token=a.b.c&state=s")
	f.Add("state=&id_token=x")
	f.Add("error=login_required&error_description=nobody+signed+in")
	f.Add("id_token=%ff%fe&state=%00")
	f.Fuzz(func(t *testing.T, body string) {
		v, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		lf, err := ParseLaunchForm(v)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) || le.Field == "" || le.Status < 400 || le.Status > 499 {
				t.Fatalf("ParseLaunchForm(%q) = %v, want an *Error naming a field", body, err)
			}
			return
		}
		if lf.State == "" || len(lf.State) > MaxStateLen || lf.IDToken == "" || len(lf.IDToken) > MaxIDTokenLen {
			t.Fatalf("ParseLaunchForm(%q) accepted %+v", body, lf)
		}
	})
}

// FuzzLogin: a login request's values are bounded, and errors name them.
func FuzzLogin(f *testing.F) {
	f.Add("iss=https://lms.example&login_hint=h&target_link_uri=https://tool/x")
	f.Add("iss=&login_hint=")
	f.Fuzz(func(t *testing.T, body string) {
		v, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		r, err := ParseLogin(v)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) || le.Field == "" || le.Status != 400 {
				t.Fatalf("ParseLogin(%q) = %v", body, err)
			}
			return
		}
		if r.Issuer == "" || len(r.LoginHint) > MaxHintLen || len(r.TargetLinkURI) > MaxURLLen {
			t.Fatalf("ParseLogin(%q) accepted %+v", body, r)
		}
	})
}

// FuzzIDToken checks whatever id_token a launch posts, against a real
// store with a registered platform and a login in flight: it never
// panics, refuses with an *Error naming the check, and accepts only a
// token the platform signed.
func FuzzIDToken(f *testing.F) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"keys": []JWK{PublicJWK("k1", &key.PublicKey)}})
	}))
	defer jwks.Close()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st, err := sqlite.Open(context.Background(), f.TempDir(), classroom.Options{Now: clock, PurgeEvery: -1})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	iss := "https://lms.example.edu"
	p, err := st.AddLTIPlatform(context.Background(), classroom.LTIPlatform{Issuer: iss, ClientID: "c1", DeploymentIDs: []string{"d1"},
		AuthURL: iss + "/auth", TokenURL: iss + "/token", JWKSURL: jwks.URL})
	if err != nil {
		f.Fatal(err)
	}
	if err := st.SaveLTILogin(context.Background(), classroom.HashSecret("state-1"), p.ID, "nonce-1", now.Add(time.Hour)); err != nil {
		f.Fatal(err)
	}
	tool := New(Config{Store: st, Now: clock})
	defer tool.Close()
	sign := func(c jwt.MapClaims) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
		tok.Header["kid"] = "k1"
		s, _ := tok.SignedString(key)
		return s
	}
	good := jwt.MapClaims{"iss": iss, "aud": "c1", "sub": "u1", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "nonce": "nonce-2",
		ClaimVersion: Version, ClaimDeploymentID: "d1", ClaimMessageType: MessageResourceLink,
		ClaimResourceLink: map[string]any{"id": "l1"}, ClaimContext: map[string]any{"id": "c"}}
	f.Add(sign(good), "state-1")
	f.Add(sign(good), "state-2")
	f.Add("eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2xtcy5leGFtcGxlLmVkdSJ9.", "state-1")
	f.Add("a.b.c", "state-1")
	f.Fuzz(func(t *testing.T, token, state string) {
		lf, err := ParseLaunchForm(url.Values{"id_token": {token}, "state": {state}})
		if err != nil {
			return
		}
		l, err := tool.Verify(context.Background(), lf)
		if err == nil {
			// Only the platform's key signs; the seeds' nonce is not the
			// login's, so nothing the fuzzer makes from them passes.
			t.Fatalf("accepted %q: %+v", token, l.Claims)
		}
		var le *Error
		if !errors.As(err, &le) || le.Field == "" || le.Status != http.StatusUnauthorized && le.Status != http.StatusBadRequest {
			t.Fatalf("Verify(%q) = %v, want an *Error naming the check", token, err)
		}
	})
}
