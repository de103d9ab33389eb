package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestLTILaunchesAreLimitedPerAddress: one address cannot send launches
// (each a token of up to 64 KB to parse, and a read of the platforms)
// faster than the joins a lecture hall behind one NAT makes: past the
// burst, a 429 with Retry-After, before anything is read.
func TestLTILaunchesAreLimitedPerAddress(t *testing.T) {
	e := startLTI(t, "sqlite")
	p := newPerson(t, e.url)
	bad := url.Values{"id_token": {"not.a.token"}, "state": {"s"}}
	limited := 0
	for i := 0; i < web.DefaultJoinRate.Burst+5; i++ {
		a := p.postForm("/lti/launch", bad)
		switch a.status {
		case http.StatusTooManyRequests:
			limited++
			if a.header.Get("Retry-After") == "" {
				t.Fatal("a refused launch gives no Retry-After")
			}
		case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		default:
			t.Fatalf("launch %d: %d %s", i, a.status, a.body)
		}
	}
	if limited != 5 {
		t.Errorf("%d of %d launches from one address refused, want the 5 past the burst of %d", limited, web.DefaultJoinRate.Burst+5, web.DefaultJoinRate.Burst)
	}
}
