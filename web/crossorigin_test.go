package web_test

import (
	"encoding/json"
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

// TestRunAndChaosRefuseCrossSitePosts: a page on another site cannot make
// its visitors' browsers spend the server's run slots: POST /api/run and
// /api/chaos from a foreign origin are refused with 403 before anything
// runs, while the playground's own pages and a client that sends no
// browser headers (curl, the load command) are answered as before.
func TestRunAndChaosRefuseCrossSitePosts(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	bodies := map[string]string{
		"/api/run":   string(preset(t, "paused-holder", true)),
		"/api/chaos": `{"backend":"async-replica","nodes":2,"runs":1,"seed":3}`,
	}
	for _, path := range []string{"/api/run", "/api/chaos"} {
		for _, tc := range []struct {
			name    string
			headers []string
			want    int
		}{
			{"a cross-site fetch", []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
			{"a foreign Origin alone", []string{"Origin", "https://evil.example"}, http.StatusForbidden},
			{"a same-site page on another host", []string{"Sec-Fetch-Site", "same-site"}, http.StatusForbidden},
			{"the playground's own page", []string{"Origin", ts.URL, "Sec-Fetch-Site", "same-origin"}, http.StatusOK},
			{"curl, without browser headers", nil, http.StatusOK},
		} {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(bodies[path]))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i < len(tc.headers); i += 2 {
				req.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body struct{ Error, Code string }
			err = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("%s to %s: %d %+v, want %d", tc.name, path, res.StatusCode, body, tc.want)
				continue
			}
			if tc.want == http.StatusForbidden && (body.Code != "forbidden" || !strings.Contains(body.Error, "cross-site request refused")) {
				t.Errorf("%s to %s: %+v, want an error saying the cross-site request was refused", tc.name, path, body)
			}
			if tc.want == http.StatusOK && err != nil {
				t.Errorf("%s to %s: the answer is not JSON: %v", tc.name, path, err)
			}
		}
	}
}
