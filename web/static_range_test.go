package web_test

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/static"
	"github.com/leaselab/playground/web"
)

// TestStaticFilesAreNotSentManyTimesOverAsRanges: a request for a static
// file in hundreds of one-byte ranges, plain or gzipped, is sent the file
// whole, not a multipart body many times its size; one range is still
// served as asked.
func TestStaticFilesAreNotSentManyTimesOverAsRanges(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	const name = "js/chaos.js"
	plain, err := fs.ReadFile(static.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	ranges := make([]string, 400)
	for i := range ranges {
		ranges[i] = fmt.Sprintf("%d-%d", 2*i, 2*i)
	}
	send := func(encoding, rng string) (int, int) {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+"/static/any/"+name, nil)
		req.Header.Set("Accept-Encoding", encoding) // set, so the client does not decode it
		req.Header.Set("Range", rng)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, len(body)
	}
	for _, enc := range []string{"gzip", "identity"} {
		status, n := send(enc, "bytes="+strings.Join(ranges, ","))
		if status != http.StatusOK || n > len(plain) {
			t.Errorf("%d one-byte ranges of a %d-byte file (Accept-Encoding %s): %d, %d bytes sent", len(ranges), len(plain), enc, status, n)
		}
		if status, n := send(enc, "bytes=0-9"); status != http.StatusPartialContent || n != 10 {
			t.Errorf("one range (Accept-Encoding %s): %d, %d bytes", enc, status, n)
		}
	}
}

// TestStaticFilesAnswerHEAD: a HEAD for a static file (a link checker, a
// proxy warming its cache) gets the file's headers and no body, not 405.
func TestStaticFilesAnswerHEAD(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	plain, err := fs.ReadFile(static.FS, "js/chaos.js")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodHead, ts.URL+"/static/any/js/chaos.js", nil)
	req.Header.Set("Accept-Encoding", "identity")
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || len(body) != 0 || res.Header.Get("Content-Length") != fmt.Sprint(len(plain)) ||
		!strings.Contains(res.Header.Get("Content-Type"), "javascript") {
		t.Errorf("HEAD: %d, %d bytes of body, Content-Length %q, Content-Type %q", res.StatusCode, len(body), res.Header.Get("Content-Length"), res.Header.Get("Content-Type"))
	}
}
