package lessons_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// FuzzLoadLessonFiles loads a folder whose lesson and exercise files are
// anything at all, as --lessons reads a teacher's folder. It never
// panics; a folder it refuses is refused with errors that name the file
// (and the line, where there is one); a folder it takes has the lesson.
func FuzzLoadLessonFiles(f *testing.F) {
	f.Add([]byte(goodLesson), []byte(goodExercise))
	f.Add([]byte(strings.Replace(goodLesson, "order: 1", "order: first", 1)), []byte(goodExercise))
	f.Add([]byte("---\ntitle: x\n"), []byte(goodExercise))
	f.Add([]byte(goodLesson), []byte("id: ex-one\nkind: number\nprompt: \"unclosed\n"))
	f.Add([]byte(goodLesson), []byte(strings.Replace(goodExercise, `answer: "2"`, "answer: locks *", 1)))
	f.Add([]byte(goodLesson), []byte(strings.Replace(goodExercise, "How many?", "How many {things}?", 1)))
	f.Add([]byte(strings.Replace(goodLesson, "preset: paused-holder", "preset: x\nset: {lock.lease: 1e999}", 1)), []byte(goodExercise))
	f.Add([]byte("---\n---\n"), []byte("{}"))
	f.Add([]byte("\xff\xfe"), []byte("&a [*a, *a, *a, *a]"))
	f.Fuzz(func(t *testing.T, lesson, exercise []byte) {
		c, err := lessons.Load(folder(map[string]string{"01-lesson.md": string(lesson), "ex-one.yaml": string(exercise)}))
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, "01-lesson.md") && !strings.Contains(msg, "ex-one.yaml") {
				t.Fatalf("an error that names no file: %.300s", msg)
			}
			var le *lessons.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("%T is not a LoadError: %.300s", err, msg)
			}
			return
		}
		if len(c.Lessons()) != 1 {
			t.Fatalf("a folder with one lesson file loaded %d lessons", len(c.Lessons()))
		}
	})
}
