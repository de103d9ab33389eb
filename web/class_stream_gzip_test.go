package web_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// countingReader counts the bytes read through it: what went on the wire.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// rawStream opens a dashboard stream with the Accept-Encoding given and
// no decompression by the client, so the test reads what was sent.
func rawStream(t *testing.T, base, code, key, accept string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/classes/"+code+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the stream: %s", res.Status)
	}
	return res
}

// nextEvent reads lines until a dashboard event's data, with a deadline.
func nextEvent(t *testing.T, lines *bufio.Scanner) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok && strings.HasPrefix(data, `{"class"`) {
				got <- data
				return
			}
		}
		close(got)
	}()
	select {
	case d, ok := <-got:
		if !ok {
			t.Fatalf("the stream ended before an event: %v", lines.Err())
		}
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no dashboard event in 30 s")
	}
	return ""
}

// TestDashboardStreamIsGzipped: a dashboard stream is sent whole on each
// change, so a browser that accepts gzip gets it compressed: each event
// can be read as soon as it is sent (not when the stream ends), a class
// of 40 is sent several times fewer bytes than the plain stream carries,
// and a stream that ends (its class deleted) ends as a whole gzip body,
// its checksum right. A client that does not ask for gzip gets the events
// plain.
func TestDashboardStreamIsGzipped(t *testing.T) {
	clk := newTestClock()
	st := openSQLiteWith(t, classroom.Options{Now: clk.Now, Retention: 24 * time.Hour, Grace: 24 * time.Hour, PurgeEvery: -1})
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	c := createClass(t, ts.URL, "Compressed")
	ids := catalogIDs(t)
	var ps []*person
	for i := range 40 {
		p, _ := join(t, ts.URL, c.Code, fmt.Sprint("Learner ", i))
		ps = append(ps, p)
		for _, id := range ids[:6] {
			record(t, st, p, id, "1", i%2 == 0)
		}
	}

	plain := rawStream(t, ts.URL, c.Code, c.TeacherKey, "")
	if enc := plain.Header.Get("Content-Encoding"); enc != "" {
		t.Errorf("a client that asked for no encoding got %q", enc)
	}
	plainLines := bufio.NewScanner(plain.Body)
	plainLines.Buffer(nil, 4<<20)
	first := nextEvent(t, plainLines)

	res := rawStream(t, ts.URL, c.Code, c.TeacherKey, "br, gzip;q=0.8")
	if enc := res.Header.Get("Content-Encoding"); enc != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", enc)
	}
	wire := &countingReader{r: res.Body}
	zr, err := gzip.NewReader(wire)
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(zr)
	lines.Buffer(nil, 4<<20)
	if got := nextEvent(t, lines); got != first {
		t.Fatalf("the compressed stream's first event differs from the plain one's:\n%.200s\n%.200s", got, first)
	}
	t.Logf("first event: %d bytes, %d on the wire", len(first), wire.n)
	if sent := wire.n; sent*4 > len(first) {
		t.Errorf("the first event of %d bytes took %d on the wire: not a quarter", len(first), sent)
	}

	// A change: both streams hear of it, the same.
	record(t, st, ps[0], ids[7], "1", true)
	second := nextEvent(t, plainLines)
	if got := nextEvent(t, lines); got != second || got == first {
		t.Errorf("after a change the compressed stream read %.120s, the plain one %.120s", got, second)
	}

	// The class is deleted: the stream ends, and its body is whole.
	clk.Advance(72 * time.Hour)
	if n, err := st.Purge(context.Background()); err != nil || n != 1 {
		t.Fatalf("purge: %d, %v", n, err)
	}
	done := make(chan error, 1)
	go func() {
		for lines.Scan() {
		}
		done <- lines.Err()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the ended stream does not read as a whole gzip body: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stream outlived its class")
	}
}
