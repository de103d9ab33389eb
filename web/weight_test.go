package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/web"
)

// TestPlaygroundPageWeight adds up the playground page, its stylesheet, its
// icon and every ES module it imports, uncompressed: the budget is 160 KiB
// (150 KiB of code and styles, and room for the preset and backend menus and
// the marks of six backends, which grow with every preset and backend, and
// for the timeline's counting of dense refusals and keeping words off
// arrows and ticks, which every run's drawing needs).
func TestPlaygroundPageWeight(t *testing.T) {
	const budget = 160 << 10
	ts, _ := startServer(t, web.Config{})
	status, page := get(t, ts.URL+"/playground")
	if status != http.StatusOK {
		t.Fatal(status)
	}
	total := len(page)
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
		status, body := get(t, ts.URL+u)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", u, status)
		}
		total += len(body)
		dir := u[:strings.LastIndex(u, "/")+1]
		for _, m := range imports.FindAllStringSubmatch(body, -1) {
			queue = append(queue, dir+m[1])
		}
	}
	t.Logf("playground page: %d bytes in %d files", total, len(seen)+1)
	if len(seen) < 8 {
		t.Errorf("only %d assets found: the walk missed the modules", len(seen))
	}
	if total > budget {
		t.Errorf("the playground page weighs %d bytes, over the %d budget", total, budget)
	}
}
