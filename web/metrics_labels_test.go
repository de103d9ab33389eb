package web_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/web"
)

// TestMetricLabelsAreAClosedSet sends requests with made-up methods and
// paths: the request series gain no label a client chose. Methods outside
// the server's own are "other", paths no route matches are "unmatched".
func TestMetricLabelsAreAClosedSet(t *testing.T) {
	ts, srv := startServer(t, web.Config{})
	r := rand.New(rand.NewPCG(1, 2))
	methods := []string{"GET", "POST", "BREW", "PROPFIND", "get", "X-" + strings.Repeat("Y", 40)}
	paths := []string{"/", "/nowhere", "/api/unknown/%d", "/static/x/%d.js", "/class/%d/teacher", "/api/exercises/%d/check", "/lessons/%d"}
	for i := range 400 {
		m := methods[r.IntN(len(methods))]
		if i%2 == 0 {
			m = fmt.Sprintf("M%d", i) // a new method each time
		}
		p := paths[r.IntN(len(paths))]
		if strings.Contains(p, "%d") {
			p = fmt.Sprintf(p, r.IntN(1e6))
		}
		req, _ := http.NewRequest(m, ts.URL+p, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	res, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	known := map[string]bool{"unmatched": true}
	for _, r := range srv.Handler().(*echo.Echo).Routes() {
		known[r.Path] = true
	}
	series := 0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "playground_http_request_duration_seconds_count{") {
			continue
		}
		series++
		labels := line[strings.Index(line, "{")+1 : strings.Index(line, "}")]
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case "method":
				if !map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true, "other": true}[v] {
					t.Errorf("method label %q", v)
				}
			case "route":
				if !known[v] || v == "/*" {
					t.Errorf("route label %q is not one of the server's routes", v)
				}
			}
		}
	}
	// A few routes, a few methods, a few codes: nowhere near 400.
	if series == 0 || series > 40 {
		t.Errorf("%d request series after 400 made-up requests, want a handful", series)
	}
}

func TestMetricsCanBeKeptOffTheMainAddress(t *testing.T) {
	ts, srv := startServer(t, web.Config{SeparateMetrics: true})
	if status, _ := get(t, ts.URL+"/metrics"); status != http.StatusNotFound {
		t.Errorf("/metrics on the main address: %d, want 404", status)
	}
	mts := httptest.NewServer(srv.MetricsHandler())
	defer mts.Close()
	status, body := get(t, mts.URL+"/metrics")
	if status != 200 || !strings.Contains(body, "playground_run_slots ") || !strings.Contains(body, "playground_runs_waiting ") {
		t.Errorf("the metrics handler: %d %.200s", status, body)
	}
}
