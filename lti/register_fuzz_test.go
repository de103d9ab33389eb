package lti

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// FuzzRegistrationKey: a registration URL's key, anything at all, is
// either a key this tool signed for registration and not expired, or a
// 401 naming "key"; nothing else the tool signs (a client assertion)
// passes, and nothing made from the seeds does.
func FuzzRegistrationKey(f *testing.F) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st, err := sqlite.Open(context.Background(), f.TempDir(), classroom.Options{Now: clock, PurgeEvery: -1})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	tool := New(Config{Store: st, Now: clock})
	defer tool.Close()
	ctx := context.Background()
	good, err := tool.RegistrationKey(ctx, time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	if err := tool.CheckRegistrationKey(ctx, good); err != nil {
		f.Fatalf("the tool refuses its own key: %v", err)
	}
	assertion, err := tool.sign(ctx, jwt.RegisteredClaims{Audience: jwt.ClaimStrings{"https://lms.example.edu/token"},
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(assertion)
	f.Add(good[:len(good)-2] + "AA")
	f.Add("")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.eyJhdWQiOiJsdGktZHluYW1pYy1yZWdpc3RyYXRpb24ifQ.")
	f.Fuzz(func(t *testing.T, key string) {
		err := tool.CheckRegistrationKey(ctx, key)
		if err == nil {
			// The signature's last base64 character may carry unused
			// bits; what it signs must be the tool's own key.
			if k, g := strings.Split(key, "."), strings.Split(good, "."); len(k) != 3 || k[0] != g[0] || k[1] != g[1] {
				t.Fatalf("accepted %q", key)
			}
			return
		}
		var le *Error
		if !errors.As(err, &le) || le.Field != "key" || le.Status != http.StatusUnauthorized {
			t.Fatalf("CheckRegistrationKey(%q) = %v, want a 401 naming key", key, err)
		}
	})
}
