package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/web"
)

// TestPlaygroundPageWeight adds up the playground page, its stylesheet, its
// icon and every ES module it imports, uncompressed: the budget is 161 KiB
// (150 KiB of code and styles, and room for the preset and backend menus and
// the marks of six backends, which grow with every preset and backend, and
// for the timeline's counting of dense refusals and keeping words off
// arrows and ticks, which every run's drawing needs; the last KiB for a
// backend's event that gives a forgotten grant back, async-replica's
// grant_back, with its mark and the lease it opens again).
func TestPlaygroundPageWeight(t *testing.T) {
	const budget = 161 << 10
	ts, _ := startServer(t, web.Config{})
	page, assets := playgroundAssets(t, ts.URL)
	total := len(page)
	for _, a := range assets {
		total += len(a.body)
	}
	t.Logf("playground page: %d bytes in %d files", total, len(assets)+1)
	if total > budget {
		t.Errorf("the playground page weighs %d bytes, over the %d budget", total, budget)
	}
}

// asset is one static file a page loads, as read uncompressed.
type asset struct{ url, body string }

// playgroundAssets reads the playground page and every static file it
// loads: its stylesheet, its icon and every ES module it imports.
func playgroundAssets(t *testing.T, base string) (page string, assets []asset) {
	t.Helper()
	status, page := get(t, base+"/playground")
	if status != http.StatusOK {
		t.Fatal(status)
	}
	doc := parseHTML(t, page)
	var queue []string
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.Data == "link" || n.Data == "script" || n.Data == "img" }) {
		for _, a := range []string{"href", "src"} {
			if v, ok := attr(n, a); ok && strings.HasPrefix(v, "/static/") {
				queue = append(queue, v)
			}
		}
	}
	imports := regexp.MustCompile(`from '\./([a-z]+\.js)'`)
	seen := map[string]bool{}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		status, body := get(t, base+u)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", u, status)
		}
		assets = append(assets, asset{u, body})
		dir := u[:strings.LastIndex(u, "/")+1]
		for _, m := range imports.FindAllStringSubmatch(body, -1) {
			queue = append(queue, dir+m[1])
		}
	}
	if len(assets) < 8 {
		t.Fatalf("only %d assets found: the walk missed the modules", len(assets))
	}
	return page, assets
}

// TestStaticFilesGoGzipped: a browser that accepts gzip gets the
// playground's scripts and style sheets compressed, each the very file
// once inflated, with Vary: Accept-Encoding for caches; together they are
// sent in well under half their size. A client that does not ask gets
// them as they are.
func TestStaticFilesGoGzipped(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	_, assets := playgroundAssets(t, ts.URL)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	fetch := func(u, accept string) *http.Response {
		req, _ := http.NewRequest("GET", ts.URL+u, nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		res, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	plain, wire := 0, 0
	for _, a := range assets {
		if !strings.HasSuffix(a.url, ".js") && !strings.HasSuffix(a.url, ".css") {
			continue
		}
		res := fetch(a.url, "gzip, deflate, br")
		if enc := res.Header.Get("Content-Encoding"); enc != "gzip" {
			t.Errorf("%s: Content-Encoding %q, want gzip", a.url, enc)
			continue
		}
		if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: no Vary: Accept-Encoding", a.url)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "text/css") {
			t.Errorf("%s: Content-Type %q", a.url, ct)
		}
		zipped, _ := io.ReadAll(res.Body)
		zr, err := gzip.NewReader(bytes.NewReader(zipped))
		if err != nil {
			t.Fatalf("%s: %v", a.url, err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || string(body) != a.body {
			t.Errorf("%s inflates to %d bytes (%v), not the file's %d", a.url, len(body), err, len(a.body))
		}
		plain += len(a.body)
		wire += len(zipped)

		res = fetch(a.url, "identity")
		if enc := res.Header.Get("Content-Encoding"); enc != "" {
			t.Errorf("%s asked without gzip: Content-Encoding %q", a.url, enc)
		}
		if body, _ := io.ReadAll(res.Body); string(body) != a.body {
			t.Errorf("%s asked without gzip: %d bytes, not the file's %d", a.url, len(body), len(a.body))
		}
	}
	t.Logf("scripts and styles: %d bytes, %d sent gzipped", plain, wire)
	if wire*2 > plain {
		t.Errorf("%d bytes of scripts and styles went as %d: not half", plain, wire)
	}
}
