package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestAllowedOriginsAreTrustedCrossSite: a deployment whose pages are
// served from another origin names it in AllowedOrigins; its requests
// pass the cross-site guard, anyone else's are refused.
func TestAllowedOriginsAreTrustedCrossSite(t *testing.T) {
	ts, _ := startServer(t, web.Config{AllowedOrigins: []string{"https://Class.example/"}})
	checkFrom := func(origin string) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/exercises/outlive-lease/check", strings.NewReader(`{"answer":"50"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := checkFrom("https://class.example"); got != http.StatusOK {
		t.Errorf("from the allowed origin: %d", got)
	}
	if got := checkFrom("https://evil.example"); got != http.StatusForbidden {
		t.Errorf("from another site: %d", got)
	}
}

func TestBadAllowedOriginIsRefusedAtStart(t *testing.T) {
	_, err := web.NewServer(web.Config{AllowedOrigins: []string{"class.example"}})
	if err == nil || !strings.HasPrefix(err.Error(), "allowed-origins: ") {
		t.Errorf("an origin without a scheme: %v", err)
	}
}
