package static_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/static"
)

// TestNoEngineRuleInTheScripts: the engine and the server own the rules
// (DESIGN.md, "One fold, on the server"). The page's scripts draw what the
// server sends; none may write out a default the engine fills in, the
// words of a verdict or a heading, or its own rule for what is stale.
func TestNoEngineRuleInTheScripts(t *testing.T) {
	// Words only the server may put on a run.
	words := []string{"SAFE", "UNSAFE", "Safe", "Unsafe", "Data safe", "lock broken", "Unavailable for", "Incomplete", "Stopped at", "as expected"}
	// Defaults the engine fills in, as string values.
	defaults := []string{engine.DefaultKey}
	// A backend written as the fallback for a scenario without one.
	fallback := regexp.MustCompile(`(\|\||\?\?)\s*['"](` + strings.Join([]string{engine.BackendRaft, engine.BackendSingle, engine.BackendAsyncReplica, engine.BackendRedlock}, "|") + `)['"]`)
	// A rule for stale writes read off an event's words instead of its mark.
	staleRule := regexp.MustCompile(`/\^?stale|\.test\(\s*e\.reason|reason[^;\n]*\.(includes|startsWith)\(\s*['"]stale`)
	literal := regexp.MustCompile("'(?:[^'\\\\\\n]|\\\\.)*'|\"(?:[^\"\\\\\\n]|\\\\.)*\"|`[^`]*`")

	files, err := fs.Glob(static.FS, "js/*.js")
	if err != nil || len(files) < 10 {
		t.Fatalf("found %d scripts (%v)", len(files), err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(static.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		for i, line := range strings.Split(src, "\n") {
			code := strings.TrimSpace(line)
			if strings.HasPrefix(code, "//") || strings.HasPrefix(code, "*") || strings.HasPrefix(code, "/**") {
				continue // comments may name the rules they leave to the server
			}
			where := func(what string) { t.Errorf("%s:%d: %s: %s", f, i+1, what, code) }
			for _, lit := range literal.FindAllString(line, -1) {
				for _, w := range words {
					if regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(lit) {
						where("a verdict's word (" + w + "): the server heads the run")
					}
				}
				for _, d := range defaults {
					if strings.Contains(lit, d) {
						where("the engine's default " + d + ": read it from the catalog or the normalised scenario")
					}
				}
			}
			if fallback.MatchString(line) {
				where("a backend written as the default: read catalog.defaults")
			}
			if staleRule.MatchString(line) {
				where("a rule for stale writes: the engine marks the event (stale)")
			}
		}
	}
}

// TestNoMarkdownRendererInTheScripts: model answers (and every other text
// written in Markdown) are rendered once, on the server, and arrive as
// HTML (model_answer_html). No script may cut Markdown into paragraphs at
// blank lines, turn backticks into code, or bring a Markdown library.
func TestNoMarkdownRendererInTheScripts(t *testing.T) {
	renderer := regexp.MustCompile(strings.Join([]string{
		`split\(\s*/\\n(\\s\*)?\\n/`,                // paragraphs at blank lines
		"split\\(\\s*['\"]`['\"]\\s*\\)",            // code spans at backticks
		"replace\\(\\s*/[^/\\n]*(`|\\\\\\*\\\\\\*)", // `code` or **bold** by a regexp
		`\b(marked|markdown-it|showdown|snarkdown|micromark)\b`,
		`\bmodel_answer\b[^_]`, // the Markdown source, where model_answer_html is the page's to show
	}, "|"))
	files, err := fs.Glob(static.FS, "js/*.js")
	if err != nil || len(files) < 10 {
		t.Fatalf("found %d scripts (%v)", len(files), err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(static.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			code := strings.TrimSpace(line)
			if strings.HasPrefix(code, "//") || strings.HasPrefix(code, "*") || strings.HasPrefix(code, "/**") {
				continue
			}
			if m := renderer.FindString(line); m != "" {
				t.Errorf("%s:%d: renders Markdown (%q): use the server's HTML: %s", f, i+1, m, code)
			}
		}
	}
}
