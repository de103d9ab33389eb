package lessons_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// contentText is a lesson or exercise file as words: lower case, one
// space between words, Markdown emphasis and typographic quotes plain.
func contentText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("content", name))
	if err != nil {
		t.Fatal(err)
	}
	return plainWords(string(b))
}

func plainWords(s string) string {
	s = strings.NewReplacer("**", "", "*", "", "`", "", "\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`).Replace(s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// TestLessonsStateTheFacts: the facts the notes give that the lessons
// once left out or got wrong are there, each where a learner meets it.
func TestLessonsStateTheFacts(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
		not  []string
	}{
		{"05-where-the-lock-lives.md", []string{"ephemeral", "deletes it when that session expires", "session timeout is therefore zookeeper's lease", "same weakness"}, nil},
		// Each system as its own documentation describes it: etcd's mutex
		// orders keys by create revision and its lessor revokes through
		// the log; ZooKeeper's recipe watches only the predecessor and its
		// servers read locally unless synced; Chubby bounds lock-delay at
		// a minute and skips it on a normal release.
		{"06-real-lock-systems.md", []string{"create revision", "czxid", "watches only the node just before its own",
			"revokes it through the log", "whole time to live again", "serializable read", "a sync before the read",
			"up to a bound of a minute", "released normally, the next client may take it at once", "its generation number",
			"come back as a new member"}, []string{"lease id is the token", "sequential number is the token"}},
		{"07-redlock.md", []string{"any two of the five redis nodes can be unreachable or down"}, []string{"one redis node can be unreachable or down"}},
		{"09-side-effects.md", []string{"payment apis commonly do", "sms gateways rarely do", "stripe", "24 hours", "paused for longer than that"}, nil},
		{"make-stale-write-land.yaml", []string{"after a newer holder has already written to the same record"}, nil},
		{"11-interview.md", []string{"what it solves", "what it costs", "what i would do"}, nil},
		{"03-four-failures.md", []string{"live-migrates", "a disk so slow"}, nil},
		{"04-fencing-tokens.md", []string{"chubby", "sequencer", "generation number"}, nil},
		{"nightly-total-predict.yaml", nil, []string{"the check at 8 s did not help"}},
	} {
		text := contentText(t, tc.file)
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q", tc.file, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(text, w) {
				t.Errorf("%s still says %q", tc.file, w)
			}
		}
	}
}

var (
	wordRE = regexp.MustCompile(`[a-z0-9]+`)
	// codeRE is code in a lesson (fenced blocks, inline spans): SQL and
	// commands may match the notes' own, and are not sentences.
	codeRE = regexp.MustCompile("(?s)```.*?```|`[^`]*`")
)

// sentences splits prose into sentences, each as its set of words.
func sentences(s string) []map[string]bool {
	var out []map[string]bool
	for _, sent := range sentenceRE.Split(s, -1) {
		words := map[string]bool{}
		for _, w := range wordRE.FindAllString(sent, -1) {
			words[w] = true
		}
		out = append(out, words)
	}
	return out
}

var sentenceRE = regexp.MustCompile(`[.!?:;]\s|\n\s*\n|\n[-•*] `)

// TestNoSentenceCopiedFromTheNotes: the lessons are written in the
// project's own words. No sentence of ten different words or more in the prose of
// a lesson or an exercise shares 80% of its words with a sentence of a
// source note (../shared/reference, where it is present): a near copy
// with a word changed is found as well as a copy. Code (SQL, commands)
// is left out.
func TestNoSentenceCopiedFromTheNotes(t *testing.T) {
	notes, _ := filepath.Glob(filepath.Join("..", "..", "shared", "reference", "*.txt"))
	if len(notes) == 0 {
		t.Skip("the source notes are not beside this checkout")
	}
	var source []map[string]bool
	for _, f := range notes {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		source = append(source, sentences(plainWords(string(b)))...)
	}
	files, _ := filepath.Glob(filepath.Join("content", "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, sent := range sentences(plainWords(codeRE.ReplaceAllString(string(b), " "))) {
			if len(sent) < 10 {
				continue
			}
			for _, src := range source {
				shared := 0
				for w := range sent {
					if src[w] {
						shared++
					}
				}
				if 5*shared >= 4*len(sent) {
					t.Errorf("%s: a sentence is a near copy of the notes: %v", filepath.Base(f), keys(sent))
					break
				}
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
