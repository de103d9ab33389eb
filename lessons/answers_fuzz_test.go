package lessons_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leaselab/playground/lessons"
)

// FuzzCheckAnswer sends an answer, anything at all, with any variant and
// count of tries, to any exercise of the built-in catalog, as POST
// /api/exercises/{id}/check does: number and choice readers, predictions
// and scenario answers (whose settings change a scenario and run the
// engine). The answer is graded or said to be unreadable; an error is the
// user's (an InputError naming a field), never anything the web would
// answer with a 500; messages are short.
func FuzzCheckAnswer(f *testing.F) {
	cat, err := lessons.Default()
	if err != nil {
		f.Fatal(err)
	}
	exs := cat.Exercises()
	byKind := map[string]int{}
	for i, ex := range exs {
		if _, ok := byKind[ex.Kind]; !ok {
			byKind[ex.Kind] = i
		}
	}
	for _, a := range []string{"", "42", "forty", "4,950 runs", "b, d", "a", "z", "15s", "1e999", "-1", strings.Repeat("9", 3000),
		`{"lock.lease":"30s"}`, `{"lock.lease":"-1s"}`, `{"nope":1}`, `{"lock.lease":"30s"} {}`, `[]`, `{"lock.lease":null}`,
		`{"fencing":true,"lock.lease":"1h"}`, "\xff", "fencing tokens order writes"} {
		for _, i := range byKind {
			f.Add(uint16(i), a, 0, 0)
		}
	}
	f.Add(uint16(0), "42", -1, -5)
	f.Add(uint16(0), "42", 1<<40, 1<<40)
	f.Fuzz(func(t *testing.T, i uint16, answer string, variant, tries int) {
		ex := exs[int(i)%len(exs)]
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r, err := ex.Check(ctx, lessons.Attempt{Exercise: ex.ID, Answer: answer, Variant: variant, Tries: tries})
		if err != nil {
			var ie *lessons.InputError
			if !errors.As(err, &ie) || ie.Field == "" || ie.Msg == "" {
				t.Fatalf("%s, answer %.200q, variant %d: %v (%T) is not the user's error", ex.ID, answer, variant, err, err)
			}
			if utf8.RuneCountInString(ie.Msg) > 300 {
				t.Fatalf("%s: an error of %d characters", ex.ID, utf8.RuneCountInString(ie.Msg))
			}
			return
		}
		if r.Exercise != ex.ID || (r.FormatError != "" && (r.Correct || r.Graded)) {
			t.Fatalf("%s, answer %.200q: %+v", ex.ID, answer, r)
		}
		if utf8.RuneCountInString(r.FormatError) > 400 {
			t.Fatalf("%s, answer %.200q: a format error of %d characters", ex.ID, answer, utf8.RuneCountInString(r.FormatError))
		}
	})
}

// TestAnswerLengthCountsCharacters: the bound is 2,000 characters, as the
// message says, however many bytes each takes.
func TestAnswerLengthCountsCharacters(t *testing.T) {
	cat, err := lessons.Default()
	if err != nil {
		t.Fatal(err)
	}
	ex := cat.Exercises()[0]
	if _, err := ex.Check(context.Background(), lessons.Attempt{Answer: strings.Repeat("é", lessons.MaxAnswerLen)}); err != nil {
		t.Errorf("%d two-byte characters: %v", lessons.MaxAnswerLen, err)
	}
	_, err = ex.Check(context.Background(), lessons.Attempt{Answer: strings.Repeat("é", lessons.MaxAnswerLen+1)})
	if err == nil || !strings.Contains(err.Error(), "is 2001 characters long; at most 2000 are accepted") {
		t.Errorf("2,001 two-byte characters: %v", err)
	}
}
