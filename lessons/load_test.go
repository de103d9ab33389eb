package lessons_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/leaselab/playground/lessons"
)

const goodLesson = `---
title: A lesson
order: 1
summary: A summary.
question: Does it load?
presets: [paused-holder]
exercises: [ex-one]
---

## Section

` + "```playground\npreset: paused-holder\ncontrols: [fencing]\ncaption: Run it.\n```\n"

const goodExercise = `id: ex-one
kind: number
title: One
prompt: How many?
answer: "2"
solution: Two.
`

// folder is a lesson folder with the given files replaced.
func folder(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		"01-lesson.md": {Data: []byte(goodLesson)},
		"ex-one.yaml":  {Data: []byte(goodExercise)},
	}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestLoadAFolder(t *testing.T) {
	c, err := lessons.Load(folder(nil))
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Lesson("lesson")
	if err != nil || l.Title != "A lesson" || len(l.Playgrounds) != 1 {
		t.Fatalf("lesson = %+v, %v", l, err)
	}
}

// TestBrokenFilesNameFileAndLine checks that each kind of mistake a teacher
// can make is reported with the file and the line to fix.
func TestBrokenFilesNameFileAndLine(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"unknown front-matter field", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "order: 1", "order: 1\ncolour: red", 1)},
			`01-lesson.md:4: unknown field "colour"`},
		{"order not a number", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "order: 1", "order: first", 1)},
			`01-lesson.md:3: "first" is a text, but a number is needed here`},
		{"no question", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "Does it load?", "It loads.", 1)},
			"01-lesson.md:5: question"},
		{"unclosed front matter", map[string]string{"01-lesson.md": "---\ntitle: x\n"},
			"01-lesson.md:1: the front matter is not closed"},
		{"unknown preset in a marker", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "preset: paused-holder", "preset: paused-holdr", 1)},
			`01-lesson.md:12: playground marker: preset "paused-holdr" is not in the lesson's presets`},
		{"unknown control", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "controls: [fencing]", "controls: [lock.leese]", 1)},
			`01-lesson.md:12: playground marker: control "lock.leese"`},
		{"missing exercise", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "[ex-one]", "[ex-one, ex-two]", 1)},
			`01-lesson.md:7: exercise "ex-two" has no file`},
		{"bad yaml", map[string]string{"ex-one.yaml": "id: ex-one\nkind: number\nprompt: \"unclosed\n"},
			"ex-one.yaml:3: YAML: found unexpected end of stream"},
		{"bad front-matter yaml", map[string]string{"01-lesson.md": strings.Replace(goodLesson, "title: A lesson", "title: [unclosed", 1)},
			"01-lesson.md:2: YAML: did not find expected"},
		{"unknown kind", map[string]string{"ex-one.yaml": strings.Replace(goodExercise, "kind: number", "kind: essay", 1)},
			`ex-one.yaml:2: kind "essay"`},
		{"bad formula", map[string]string{"ex-one.yaml": strings.Replace(goodExercise, `answer: "2"`, "answer: locks *", 1)},
			`ex-one.yaml:5: formula "locks *"`},
		{"unknown placeholder", map[string]string{"ex-one.yaml": strings.Replace(goodExercise, "How many?", "How many {things}?", 1)},
			"ex-one.yaml:4: {things} is not a parameter"},
		{"orphan exercise", map[string]string{"ex-two.yaml": strings.Replace(goodExercise, "ex-one", "ex-two", 1)},
			`ex-two.yaml:1: exercise "ex-two" is not listed`},
	}
	for _, tt := range tests {
		_, err := lessons.Load(folder(tt.files))
		if err == nil {
			t.Errorf("%s: loaded without an error", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q does not contain %q", tt.name, err, tt.want)
		}
	}
}

func TestOpenADirectory(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"01-lesson.md": goodLesson, "ex-one.yaml": strings.Replace(goodExercise, "kind: number", "kind: nonsense", 1)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := lessons.Open(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "ex-one.yaml")+":2:") {
		t.Errorf("Open of a broken folder: %v, want the file path and line", err)
	}
	if _, err := lessons.Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder opened")
	}
}
