package web_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPageCodeNamesNoBackendsOwnKinds: the page's scripts and the web
// package's code say nothing of etcd, ZooKeeper or Redlock, their token
// words or their event kinds and marks, and name no built-in backend to
// choose it (not even the default one, which the catalog names): the page
// draws what a backend's entry declares (the catalog's backends: its
// marks, its token word, its per-node holds), so a backend added to the
// engine needs no code here.
func TestPageCodeNamesNoBackendsOwnKinds(t *testing.T) {
	words := regexp.MustCompile(`(?i)etcd|zookeeper|\bzk|zxid|revision|\brev\b|session.expired|lease.extended|watch.fired|['"]watching['"]|redlock|['"](raft|single|async-replica)['"]|Backend(Raft|Single|Async|Redlock|Etcd|Zoo)`)
	var files []string
	for _, pattern := range []string{"../static/js/*.js", "*.go", "*.templ"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if m := words.FindString(line); m != "" {
				t.Errorf("%s:%d names a built-in backend's own words (%q): %s", f, i+1, m, strings.TrimSpace(line))
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d files checked", checked)
	}
}
