package lessons_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestHeadingTextIsPlainText: the contents list shows a heading as text,
// so a typographic apostrophe in it is the character, not the HTML entity
// the Markdown renderer writes ("etcd&rsquo;s" shown literally).
func TestHeadingTextIsPlainText(t *testing.T) {
	md := strings.Replace(goodLesson, "## Section", "## ZooKeeper's sessions", 1)
	c, err := lessons.Load(folder(map[string]string{"01-lesson.md": md}))
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Lesson("lesson")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Headings) != 1 || l.Headings[0].Text != "ZooKeeper\u2019s sessions" {
		t.Errorf("headings = %+v, want the text ZooKeeper\u2019s sessions", l.Headings)
	}
}
