package web_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestTheRequestLogKeepsNoCredentials: whoever reads the server's logs
// learns no registration key or token, no picker token, and gets one
// short line for the longest share link.
func TestTheRequestLogKeepsNoCredentials(t *testing.T) {
	var logs lockedBuffer
	ts, _ := startServer(t, web.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, path := range []string{
		"/lti/register?openid_configuration=https%3A%2F%2Flms.example.edu%2Fcfg&registration_token=SECRET-TOKEN-1&key=SECRET-KEY-2",
		"/lti/pick/SECRET-PICK-3",
		"/playground?s=" + strings.Repeat("A", 80000),
	} {
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	waitFor(t, func() bool { return strings.Count(logs.String(), "msg=request") >= 3 })
	out := logs.String()
	for _, secret := range []string{"SECRET-TOKEN-1", "SECRET-KEY-2", "SECRET-PICK-3"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log holds %s:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "REDACTED") {
		t.Errorf("the log does not say what it left out:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 2000 {
			t.Errorf("a log line of %d bytes: %.200s…", len(line), line)
		}
	}
}
