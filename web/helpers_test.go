package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// startServer serves a playground on a test server and shuts both down
// when the test ends.
func startServer(tb testing.TB, cfg web.Config) (*httptest.Server, *web.Server) {
	tb.Helper()
	srv, err := web.NewServer(cfg)
	if err != nil {
		tb.Fatalf("NewServer: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			tb.Errorf("Shutdown: %v", err)
		}
		ts.Close()
	})
	return ts, srv
}

// get fetches a URL and returns the status and body.
func get(tb testing.TB, url string) (int, string) {
	tb.Helper()
	res, err := http.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("GET %s: reading body: %v", url, err)
	}
	return res.StatusCode, string(body)
}

// parseHTML parses a page.
func parseHTML(tb testing.TB, body string) *html.Node {
	tb.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		tb.Fatalf("parsing HTML: %v", err)
	}
	return doc
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// findAll returns the elements matching pred, in document order.
func findAll(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && pred(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// byTestID returns the elements whose data-testid is id.
func byTestID(doc *html.Node, id string) []*html.Node {
	return findAll(doc, func(n *html.Node) bool { v, _ := attr(n, "data-testid"); return v == id })
}

// oneByTestID returns the one element with data-testid id.
func oneByTestID(tb testing.TB, doc *html.Node, id string) *html.Node {
	tb.Helper()
	els := byTestID(doc, id)
	if len(els) != 1 {
		tb.Fatalf("want one element with data-testid=%q, found %d", id, len(els))
	}
	return els[0]
}

// text is the text content of an element, with spaces collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// mustPrepare validates a scenario and fails the test on error.
func mustPrepare(tb testing.TB, sc engine.Scenario) *engine.Prepared {
	tb.Helper()
	p, err := engine.Prepare(sc)
	if err != nil {
		tb.Fatalf("prepare %q: %v", sc.Title, err)
	}
	return p
}

// mustRun prepares a scenario and runs it to its end, as the server would,
// and fails the test on any error.
func mustRun(tb testing.TB, sc engine.Scenario) *engine.Result {
	tb.Helper()
	res, err := engine.Execute(tb.Context(), mustPrepare(tb, sc))
	if err != nil {
		tb.Fatalf("run %q: %v", sc.Title, err)
	}
	return res
}
