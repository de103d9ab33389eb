package web_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/leaselab/playground/web"
)

// BenchmarkStaticFile serves the playground's largest script to a browser
// that takes gzip and to one that does not, straight to the server's
// handler (the body counted, not kept), and reports the bytes allocated
// for each request: the file is
// read once per process, so a request allocates its headers, not the
// file's size.
//
// Rerun: go test ./web -run '^$' -bench StaticFile -benchtime 20000x
func BenchmarkStaticFile(b *testing.B) {
	srv, err := web.NewServer(web.Config{})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	for _, enc := range []string{"gzip", "identity"} {
		b.Run(enc, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "/static/any/js/playground.js", nil)
				req.Header.Set("Accept-Encoding", enc)
				w := &discard{header: http.Header{}}
				h.ServeHTTP(w, req)
				if w.status != http.StatusOK || w.n == 0 {
					b.Fatalf("GET: %d, %d bytes", w.status, w.n)
				}
			}
		})
	}
}

// discard is a ResponseWriter that keeps the status and counts the body,
// so that a benchmark's allocations are the server's alone.
type discard struct {
	header http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header { return d.header }

func (d *discard) WriteHeader(status int) { d.status = status }

func (d *discard) Write(p []byte) (int, error) {
	if d.status == 0 {
		d.status = http.StatusOK
	}
	d.n += len(p)
	return len(p), nil
}
